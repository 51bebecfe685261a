// Per-queue figures of a fair-share replay: how each trace's queue fared
// against the others (waits, its share of the GPU-seconds, evictions).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "sim/cluster_layout.hpp"
#include "sim/json_text.hpp"
#include "sim/replay.hpp"
#include "sim/summary.hpp"

namespace gantry::sim {

struct QueueReport {
  std::string name;
  std::int32_t weight = 1;
  Summary summary;
  double gpu_share = 0;  // of the GPU-seconds every queue used
};

// One entry per trace when `config` is fair share (queue i holds trace i's
// jobs), none otherwise: in isolated mode the per-cluster rows already are
// per-queue, and pooled fifo / firstfit have a single queue.
std::vector<QueueReport> make_queue_reports(const std::vector<SimCluster>& clusters,
                                            const ReplayConfig& config, const ReplayResult& result);

void print_queue_table(std::ostream& out, const std::vector<QueueReport>& queues);

// A JSON array of objects: name, weight, jobs, mean/p50/p99/max wait,
// gpu_seconds, gpu_share, evictions, sla_reached.
// The wait figures of `s` (mean, p50, p99, max), as both reports spell them.
void add_wait_figures(Json& out, const Summary& s);

Json queues_json(const std::vector<QueueReport>& queues);

}  // namespace gantry::sim
