// What an agent tells Prometheus (docs/metrics.md, "Agents"): counters its
// loop bumps as it answers the hub and runs replicas, gauges it sets once a
// loop turn, read by the HTTP thread when Prometheus scrapes. Atomics: the
// loop never waits on a scrape.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "protocol/messages.hpp"

namespace gantry::agents {

struct AgentMetrics {
  // The hub's Prepares, by answer (an Admit or a Reject sent).
  std::atomic<std::uint64_t> prepares_admitted{0};
  std::atomic<std::uint64_t> prepares_refused{0};
  // Commits that started a part's replicas through the executor.
  std::atomic<std::uint64_t> parts_started{0};
  // Replicas that ended, and those of them that failed (exit code not 0, a
  // signal, or never started).
  std::atomic<std::uint64_t> replica_exits{0};
  std::atomic<std::uint64_t> replica_failures{0};
  // Usage reports sent to the hub, and when the last one left (Unix ms):
  // time() - gantry_agent_last_usage_report_timestamp_seconds is the lag.
  std::atomic<std::uint64_t> usage_reports{0};
  std::atomic<std::int64_t> last_usage_report_ms{0};
  // Node role: reports sent to the cluster agent, and those whose NVML read
  // failed for some or every GPU.
  std::atomic<std::uint64_t> node_reports{0};
  std::atomic<std::uint64_t> nvml_read_errors{0};
  // Gauges.
  std::atomic<bool> hub_connected{false};  // the hub welcomed this session
  std::atomic<std::uint64_t> runs{0};
  std::atomic<std::uint64_t> prepared_parts{0};

  // One outbound message to the hub was sent.
  void sent(const protocol::Admit&) { ++prepares_admitted; }
  void sent(const protocol::Reject&) { ++prepares_refused; }
  template <class Other>
  void sent(const Other&) {}
};

// `role`: standalone, cluster or node. "" when ready (/readyz), else why not:
// a node-role agent is ready once it runs, the others once the hub welcomed them.
std::string agent_not_ready_reason(const AgentMetrics& metrics, const std::string& role);
std::string render_agent_metrics(const AgentMetrics& metrics, const std::string& cluster,
                                 const std::string& role);

}  // namespace gantry::agents
