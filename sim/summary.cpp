#include "sim/summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gantry::sim {
namespace {

constexpr double kSecondsPerMs = 1e-3;

double seconds(hub::TimeMs ms) {
  return static_cast<double>(ms) * kSecondsPerMs;
}

}  // namespace

double nearest_rank(const std::vector<double>& sorted, double percent) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(percent / 100.0 * static_cast<double>(sorted.size()));
  const auto index = static_cast<std::size_t>(std::max(rank, 1.0)) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

Summary summarize(const std::vector<JobOutcome>& jobs, std::optional<std::uint32_t> trace,
                  std::int64_t gpus) {
  Summary summary;
  std::vector<double> waits;
  double jct_sum = 0;
  double gpu_seconds = 0;
  hub::TimeMs first_submit = std::numeric_limits<hub::TimeMs>::max();
  hub::TimeMs last_end = std::numeric_limits<hub::TimeMs>::min();
  for (const JobOutcome& job : jobs) {
    if (trace && job.trace != *trace) continue;
    if (!job.ran) {
      ++summary.unschedulable;
      continue;
    }
    waits.push_back(seconds(job.wait_ms()));
    jct_sum += seconds(job.end_ms() - job.submit_ms);
    gpu_seconds += static_cast<double>(job.gpus) * seconds(job.duration_ms);
    first_submit = std::min(first_submit, job.submit_ms);
    last_end = std::max(last_end, job.end_ms());
  }
  summary.jobs = waits.size();
  if (waits.empty()) return summary;

  std::sort(waits.begin(), waits.end());
  double wait_sum = 0;
  for (double wait : waits) wait_sum += wait;
  const auto count = static_cast<double>(waits.size());
  summary.mean_jct_s = jct_sum / count;
  summary.mean_wait_s = wait_sum / count;
  summary.p50_wait_s = nearest_rank(waits, 50);
  summary.p99_wait_s = nearest_rank(waits, 99);
  summary.max_wait_s = waits.back();
  summary.makespan_s = seconds(last_end - first_submit);
  if (summary.makespan_s > 0 && gpus > 0)
    summary.gpu_utilization = gpu_seconds / (static_cast<double>(gpus) * summary.makespan_s);
  return summary;
}

}  // namespace gantry::sim
