#include "sim/report.hpp"

#include <cstdio>

#include "sim/json_text.hpp"

namespace gantry::sim {
namespace {

void add_summary(Json& out, const Summary& s) {
  out["jobs"] = s.jobs;
  out["unschedulable"] = s.unschedulable;
  out["mean_jct_s"] = json_number(s.mean_jct_s);
  add_wait_figures(out, s);
  out["makespan_s"] = json_number(s.makespan_s);
  out["gpu_utilization"] = json_number(s.gpu_utilization);
}

Json cluster_json(const ClusterReport& cluster) {
  Json out;
  out["name"] = cluster.name;
  out["nodes"] = cluster.nodes;
  out["gpus"] = cluster.gpus;
  if (cluster.summary) add_summary(out, *cluster.summary);
  return out;
}

// What the run was, beyond mode and policy: the knobs that change outcomes.
void add_policy(Json& out, const ReplayConfig& config) {
  out["placement"] = config.placement;
  out["split"] = config.split;
  out["sla_s"] = json_number(static_cast<double>(config.sla_ms) / 1000);
  if (config.policy == Policy::kFairShare) out["reclaim"] = config.reclaim;
  // Only when used, so the JSON of runs without them stays as it was.
  if (config.time_limit.any()) out["time_limit"] = time_limit_model_name(config.time_limit);
  if (config.time_limit.kind == TimeLimitModel::Kind::kTraceRandom)
    out["time_limit_seed"] = config.time_limit.seed;
  if (reservations_of(config) > 0) out["reservations"] = reservations_of(config);
  if (config.planned_runtimes != hub::PlannedRuntimes::kLimits)
    out["planned_runtimes"] = std::string(hub::planned_runtimes_name(config.planned_runtimes));
}

void add_evictions(Json& out, const Report& report) {
  out["evictions"] = report.evictions;
  out["withdrawn_dispatches"] = report.withdrawn_dispatches;
  out["lost_gpu_seconds"] = json_number(report.overall.lost_gpu_seconds);
  out["max_pending_s"] = json_number(report.overall.max_pending_s);
  out["sla_reached"] = report.overall.sla_reached;
  out["split_jobs"] = report.overall.split_jobs;
}

void print_row(std::ostream& out, const std::string& name, std::size_t nodes, std::int64_t gpus,
               const Summary& s) {
  char line[256];
  std::snprintf(line, sizeof line,
                "%-12s %6zu %6lld %7zu %7zu %11.0f %11.0f %10.0f %10.0f %10.0f %11.0f %6.3f\n",
                name.c_str(), nodes, static_cast<long long>(gpus), s.jobs, s.unschedulable,
                s.mean_jct_s, s.mean_wait_s, s.p50_wait_s, s.p99_wait_s, s.max_wait_s, s.makespan_s,
                s.gpu_utilization);
  out << line;
}

void print_heading(std::ostream& out, const ReplayConfig& config) {
  out << "mode " << mode_name(config.mode) << ", policy " << policy_name(config.policy);
  if (config.policy == Policy::kFairShare)
    out << " (reclaim " << (config.reclaim ? "on" : "off") << ")";
  out << ", placement " << config.placement << ", split " << (config.split ? "on" : "off");
  if (config.sla_ms > 0) out << ", sla " << config.sla_ms / 1000 << " s";
  if (config.time_limit.any()) out << ", time-limit " << time_limit_model_name(config.time_limit);
  if (reservations_of(config) > 0) out << ", reservations " << reservations_of(config);
  if (config.planned_runtimes != hub::PlannedRuntimes::kLimits)
    out << ", planned runtimes " << hub::planned_runtimes_name(config.planned_runtimes);
  out << "; times in seconds\n";
}

// Said only when there is something to say, so fifo / firstfit tables stay as they were.
void print_footer(std::ostream& out, const Report& report) {
  const Summary& s = report.overall;
  char line[320];
  if (report.config.policy == Policy::kFairShare) {
    std::snprintf(line, sizeof line,
                  "evictions %zu (%.0f GPU-hours of work thrown away; longest wait less "
                  "evicted run time %.0f s); dispatches withdrawn by the pass that made them: "
                  "%zu\n",
                  report.evictions, s.lost_gpu_seconds / 3600, s.max_pending_s,
                  report.withdrawn_dispatches);
    out << line;
  }
  if (report.config.split) {
    std::snprintf(line, sizeof line, "jobs whose run spanned several clusters: %zu\n",
                  s.split_jobs);
    out << line;
  }
  if (report.config.sla_ms > 0) {
    std::snprintf(line, sizeof line, "jobs that waited at least the %lld s SLA: %zu\n",
                  static_cast<long long>(report.config.sla_ms / 1000), s.sla_reached);
    out << line;
  }
}

}  // namespace

Report make_report(const std::vector<SimCluster>& clusters, const ReplayConfig& config,
                   const ReplayResult& result) {
  Report report;
  report.config = config;
  for (std::uint32_t c = 0; c < clusters.size(); ++c) {
    ClusterReport cluster{clusters[c].name, clusters[c].nodes.size(), clusters[c].gpus(),
                          std::nullopt};
    if (config.mode == Mode::kIsolated)
      cluster.summary = summarize(result.jobs, c, cluster.gpus, config.sla_ms);
    report.gpus += cluster.gpus;
    report.clusters.push_back(std::move(cluster));
  }
  report.overall = summarize(result.jobs, std::nullopt, report.gpus, config.sla_ms);
  report.evictions = result.evictions;
  report.withdrawn_dispatches = result.withdrawn_dispatches;
  report.queues = make_queue_reports(clusters, config, result);
  return report;
}

void print_table(std::ostream& out, const Report& report) {
  print_heading(out, report.config);
  out << "cluster       nodes   gpus    jobs unsched    mean_jct   mean_wait   p50_wait   p99_wait"
         "   max_wait    makespan   util\n";
  std::size_t nodes = 0;
  for (const ClusterReport& cluster : report.clusters) {
    nodes += cluster.nodes;
    if (cluster.summary)
      print_row(out, cluster.name, cluster.nodes, cluster.gpus, *cluster.summary);
  }
  print_row(out, "all", nodes, report.gpus, report.overall);
  print_footer(out, report);
  print_queue_table(out, report.queues);
}

std::string to_json(const Report& report) {
  Json out;
  out["mode"] = mode_name(report.config.mode);
  out["policy"] = policy_name(report.config.policy);
  add_policy(out, report.config);
  add_summary(out, report.overall);
  add_evictions(out, report);
  out["gpus"] = report.gpus;
  out["clusters"] = Json::array();
  for (const ClusterReport& cluster : report.clusters)
    out["clusters"].push_back(cluster_json(cluster));
  if (!report.queues.empty()) out["queues"] = queues_json(report.queues);
  return json_text(out) + "\n";
}

}  // namespace gantry::sim
