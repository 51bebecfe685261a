#include "agents/agent_metrics.hpp"

#include "support/prometheus_text.hpp"

namespace gantry::agents {

namespace {

using support::MetricLabels;
using support::PrometheusText;

void one(PrometheusText& out, const char* name, const char* type, const char* help,
         const MetricLabels& labels, double value) {
  out.family(name, type, help);
  out.sample(name, labels, value);
}

double count(const std::atomic<std::uint64_t>& counter) {
  return static_cast<double>(counter.load(std::memory_order_relaxed));
}

}  // namespace

std::string agent_not_ready_reason(const AgentMetrics& metrics, const std::string& role) {
  if (role == "node" || metrics.hub_connected.load()) return "";
  return "not connected to the hub";
}

std::string render_agent_metrics(const AgentMetrics& metrics, const std::string& cluster,
                                 const std::string& role) {
  PrometheusText out;
  const MetricLabels agent{{"cluster", cluster}, {"role", role}};
  one(out, "gantry_agent_hub_connected", "gauge", "1 while the hub has welcomed this agent.", agent,
      metrics.hub_connected.load() ? 1 : 0);
  one(out, "gantry_agent_runs", "gauge", "Parts this agent runs.", agent, count(metrics.runs));
  one(out, "gantry_agent_prepared_parts", "gauge", "Parts admitted and held, awaiting a Commit.",
      agent, count(metrics.prepared_parts));
  out.family("gantry_agent_prepares_total", "counter",
             "The hub's Prepares, by this agent's answer.");
  MetricLabels admitted = agent, refused = agent;
  admitted.emplace_back("result", "admitted");
  refused.emplace_back("result", "refused");
  out.sample("gantry_agent_prepares_total", admitted, count(metrics.prepares_admitted));
  out.sample("gantry_agent_prepares_total", refused, count(metrics.prepares_refused));
  one(out, "gantry_agent_parts_started_total", "counter",
      "Commits that started a part's replicas through the executor.", agent,
      count(metrics.parts_started));
  one(out, "gantry_agent_replica_exits_total", "counter", "Replicas that ended.", agent,
      count(metrics.replica_exits));
  one(out, "gantry_agent_replica_failures_total", "counter",
      "Replicas that failed: a non-zero exit, a signal, or never started.", agent,
      count(metrics.replica_failures));
  one(out, "gantry_agent_usage_reports_total", "counter", "Usage reports sent to the hub.", agent,
      count(metrics.usage_reports));
  one(out, "gantry_agent_last_usage_report_timestamp_seconds", "gauge",
      "When the last usage report left (Unix time); 0 before the first.", agent,
      static_cast<double>(metrics.last_usage_report_ms.load()) / 1000.0);
  one(out, "gantry_agent_node_reports_total", "counter",
      "Node role: reports sent to the cluster agent.", agent, count(metrics.node_reports));
  one(out, "gantry_agent_nvml_read_errors_total", "counter",
      "Node role: reports in which NVML could not read some or every GPU.", agent,
      count(metrics.nvml_read_errors));
  return out.take();
}

}  // namespace gantry::agents
