// The node role of gantry-agent (a DaemonSet pod on every node): it reads what
// its node has and uses from /proc and NVML and sends it, as a NodeReport, to
// its cluster's cluster-role agent, which joins it with the Kubernetes view.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "agents/agent_metrics.hpp"
#include "agents/nvml.hpp"
#include "protocol/messages.hpp"
#include "support/curve_socket.hpp"

namespace gantry::agents {

struct NodeRoleOptions {
  std::string cluster_agent_endpoint;  // the cluster-role agent's ROUTER, e.g. tcp://host:7802
  std::string cluster;                 // "": whichever cluster the cluster-role agent serves
  std::string node;
  std::int32_t report_interval_ms = 5000;
  std::string nvml_library = "libnvidia-ml.so.1";
  std::filesystem::path proc = "/proc";
  // The cluster-role agent's public key and this node's keypair: a CurveZMQ
  // client. nullopt: plaintext (--insecure).
  std::optional<support::CurveClientKeys> keys;
  // Counts reports and NVML read errors (agents/agent_metrics.hpp); nullptr: not counted.
  AgentMetrics* metrics = nullptr;
};

// One report: /proc and NVML now. Throws std::runtime_error when /proc cannot
// be read (read_host_stats); NVML's absence is not an error (gpu_error says it).
protocol::NodeReport sample_node(const NodeRoleOptions& options, Nvml& nvml);

// The node role's loop: a ZeroMQ DEALER (routing id "node/<node>") connected
// to the cluster-role agent's ROUTER; sends a NodeReport (protocol::encode) at
// start and every report_interval_ms. Returns 0 when stop_fd turns readable
// (it is not drained), 1 after logging why it cannot go on (bad options, an
// unreadable /proc, a socket error). Logs NVML's absence once.
int run_node_role(const NodeRoleOptions& options, int stop_fd);

}  // namespace gantry::agents
