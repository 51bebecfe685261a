// gantry-agent's command line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agents/agent_settings.hpp"
#include "agents/test_faults.hpp"
#include "support/log_format.hpp"
#include "support/metrics_endpoint.hpp"

namespace gantry::agents {

// docs/agents.md: one binary, three roles.
//   standalone (default): one process for a whole cluster whose nodes are an
//     inventory file (bare machines, laptops, tests);
//   node: one per node (a DaemonSet pod), reporting /proc and NVML to its
//     cluster-role agent;
//   cluster: one per cluster (elected with a Lease in Kubernetes), holding the
//     hub session; its nodes come from Kubernetes or from node-role reports.
struct AgentOptions {
  std::string role = "standalone";  // --role standalone|node|cluster
  std::string hub_endpoint;         // --hub tcp://HOST:PORT (standalone, cluster)
  std::string cluster;              // --cluster NAME (else the inventory's cluster.name)
  std::string inventory_path;       // --inventory FILE (standalone; .yaml or openb .csv)
  std::string executor = "sim";     // --executor sim|process|kubernetes

  // CurveZMQ (agents/agent_keys.hpp): the files are read, and their absence
  // reported, at start, not while parsing.
  std::string hub_key_file;      // --hub-key FILE, else $GANTRY_HUB_KEY: the hub's public key
  std::string key_file;          // --key FILE, else $GANTRY_KEY: this agent's keypair
  bool insecure = false;         // --insecure: plaintext to the hub and on the node socket
  std::string node_keys_file;    // cluster role: --node-keys FILE, node keys it accepts
  std::string cluster_key_file;  // node role: --cluster-key FILE, the cluster agent's key

  // node role
  std::string cluster_agent_endpoint;  // --cluster-agent tcp://HOST:PORT (required)
  std::string node_name;               // --node-name, else $NODE_NAME, else the host name
  std::int32_t report_interval_ms = 5000;
  std::string nvml_library = "libnvidia-ml.so.1";
  // cluster role
  std::string node_listen;      // --node-listen tcp://HOST:PORT: node-role agents report here
  std::string kubeconfig;       // --kubeconfig FILE|in-cluster: the cluster's API server
  std::string lease_namespace;  // --lease-namespace / --lease-name / --identity: elect
  std::string lease_name;       //   one leader among cluster-role agents (all three or none)
  std::string identity;
  std::string ocm_namespace;  // --ocm-namespace: write AddOnPlacementScore there
  std::string work_dir;       // --work-dir, default ./var/agent-<cluster>
  std::string state_dir;      // --state, default <work-dir>/.agent-state
  // Process executor (agents/replica_user.hpp): --run-as USER runs replicas
  // as that user; --allow-root lets them run as root (an agent started as
  // root without --run-as, or --run-as root), which is refused otherwise.
  std::string run_as;
  bool allow_root = false;
  // --heartbeat-ms, --liveness, --max-backoff-ms (tests use small values).
  SessionTiming session;
  // --advertise-address, --prepare-hold-ms, --pending-give-up-ms; the
  // elastic state directory is set from --work-dir at start.
  AgentCoreOptions core;
  // --namespace, --scheduler-name, --member-queue, --rendezvous-port,
  // --cross-cluster-rendezvous, --keep-ended; the agent identity is set from
  // the cluster's name at start.
  KubernetesExecutorOptions kubernetes;
  // --http-listen, --http-cert, --http-key, --metrics-token-file (default
  // <work-dir>/metrics.token): this agent's /metrics (docs/metrics.md).
  support::HttpEndpointFlags http;
  TestFaults test_faults;  // --test-fault SPEC (repeatable; tests only)
  std::string log_level = "info";
  support::LogFormat log_format = support::LogFormat::kText;  // --log-format text|json
  bool help = false;
};

// Throws std::invalid_argument naming the flag and the value it refuses.
// Takes the arguments after the program name.
AgentOptions parse_agent_options(const std::vector<std::string>& args);
std::string agent_usage();

}  // namespace gantry::agents
