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
  double makespan_s = 0;       // first submission to last end
  double gpu_utilization = 0;  // GPU-seconds used / (gpus x makespan)
};

// Figures over the jobs of trace `trace` (every job when nullopt), on
// clusters with `gpus` GPUs in total.
Summary summarize(const std::vector<JobOutcome>& jobs, std::optional<std::uint32_t> trace,
                  std::int64_t gpus);

// Nearest-rank percentile of ascending `sorted` (0 when empty): the smallest
// value with at least p% of the values at or below it.
double nearest_rank(const std::vector<double>& sorted, double percent);

}  // namespace gantry::sim
