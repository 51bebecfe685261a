// The figures a replay is judged by (see sim/README.md for definitions).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/replay.hpp"

namespace gantry::sim {

struct Summary {
  std::size_t jobs = 0;           // jobs that ran
  std::size_t unschedulable = 0;  // jobs that never fit, left out of every figure below
  double mean_jct_s = 0;          // submit to end
  double mean_wait_s = 0;         // submit to start
  double p50_wait_s = 0;          // nearest-rank percentiles
  double p99_wait_s = 0;
  double max_wait_s = 0;
  double makespan_s = 0;        // first submission to last end
  double gpu_utilization = 0;   // GPU-seconds used / (gpus x makespan)
  double gpu_seconds = 0;       // of the runs that completed
  std::size_t evictions = 0;    // runs stopped and restarted later
  double lost_gpu_seconds = 0;  // GPU-seconds those stopped runs threw away
  double max_pending_s = 0;     // the longest wait less the job's own evicted run time
  std::size_t sla_reached = 0;  // jobs that waited at least the SLA (0 when there is none)
  std::size_t split_jobs = 0;   // jobs whose last run spanned several clusters (--split)
};

// Figures over the jobs of trace `trace` (every job when nullopt), on
// clusters with `gpus` GPUs in total; `sla_ms` > 0 counts the jobs whose wait
// reached it.
Summary summarize(const std::vector<JobOutcome>& jobs, std::optional<std::uint32_t> trace,
                  std::int64_t gpus, std::int64_t sla_ms = 0);

// Nearest-rank percentile of ascending `sorted` (0 when empty): the smallest
// value with at least p% of the values at or below it.
double nearest_rank(const std::vector<double>& sorted, double percent);

}  // namespace gantry::sim
