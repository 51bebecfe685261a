#include "sim/queue_report.hpp"

#include <cstdio>

#include "sim/json_text.hpp"

namespace gantry::sim {

std::vector<QueueReport> make_queue_reports(const std::vector<SimCluster>& clusters,
                                            const ReplayConfig& config,
                                            const ReplayResult& result) {
  std::vector<QueueReport> queues;
  if (config.policy != Policy::kFairShare) return queues;
  std::int64_t gpus = 0;
  for (const SimCluster& cluster : clusters) gpus += cluster.gpus();
  double total_gpu_seconds = 0;
  for (std::uint32_t t = 0; t < clusters.size(); ++t) {
    QueueReport queue;
    queue.name = clusters[t].name;
    queue.weight = config.weights.empty() ? 1 : config.weights[t];
    queue.summary = summarize(result.jobs, t, gpus, config.sla_ms);
    total_gpu_seconds += queue.summary.gpu_seconds;
    queues.push_back(std::move(queue));
  }
  for (QueueReport& queue : queues)
    if (total_gpu_seconds > 0) queue.gpu_share = queue.summary.gpu_seconds / total_gpu_seconds;
  return queues;
}

void print_queue_table(std::ostream& out, const std::vector<QueueReport>& queues) {
  if (queues.empty()) return;
  out << "queue        weight    jobs   mean_wait    p99_wait    max_wait  gpu_share  evictions\n";
  for (const QueueReport& queue : queues) {
    const Summary& s = queue.summary;
    char line[200];
    std::snprintf(line, sizeof line, "%-12s %6d %7zu %11.0f %11.0f %11.0f %10.3f %10zu\n",
                  queue.name.c_str(), queue.weight, s.jobs, s.mean_wait_s, s.p99_wait_s,
                  s.max_wait_s, queue.gpu_share, s.evictions);
    out << line;
  }
}

void add_wait_figures(Json& out, const Summary& s) {
  out["mean_wait_s"] = json_number(s.mean_wait_s);
  out["p50_wait_s"] = json_number(s.p50_wait_s);
  out["p99_wait_s"] = json_number(s.p99_wait_s);
  out["max_wait_s"] = json_number(s.max_wait_s);
}

Json queues_json(const std::vector<QueueReport>& queues) {
  Json out = Json::array();
  for (const QueueReport& queue : queues) {
    const Summary& s = queue.summary;
    Json entry;
    entry["name"] = queue.name;
    entry["weight"] = queue.weight;
    entry["jobs"] = s.jobs;
    add_wait_figures(entry, s);
    entry["gpu_seconds"] = json_number(s.gpu_seconds);
    entry["gpu_share"] = json_number(queue.gpu_share);
    entry["evictions"] = s.evictions;
    entry["sla_reached"] = s.sla_reached;
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace gantry::sim
