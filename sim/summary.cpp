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

// Sums over the jobs that ran; turned into a Summary by finish().
struct Totals {
  std::vector<double> waits;
  double jct_sum = 0;
  hub::TimeMs first_submit = std::numeric_limits<hub::TimeMs>::max();
  hub::TimeMs last_end = std::numeric_limits<hub::TimeMs>::min();
};

void add_job(const JobOutcome& job, std::int64_t sla_ms, Totals& totals, Summary& summary) {
  // An evicted run is lost work whether or not the job ran again.
  summary.evictions += static_cast<std::size_t>(job.evictions);
  summary.lost_gpu_seconds += static_cast<double>(job.gpus) * seconds(job.lost_ms);
  if (!job.ran) {
    ++summary.unschedulable;
    return;
  }
  totals.waits.push_back(seconds(job.wait_ms()));
  summary.max_pending_s = std::max(summary.max_pending_s, seconds(job.wait_ms() - job.lost_ms));
  totals.jct_sum += seconds(job.end_ms() - job.submit_ms);
  summary.gpu_seconds += static_cast<double>(job.gpus) * seconds(job.duration_ms);
  totals.first_submit = std::min(totals.first_submit, job.submit_ms);
  totals.last_end = std::max(totals.last_end, job.end_ms());
  if (sla_ms > 0 && job.wait_ms() >= sla_ms) ++summary.sla_reached;
  if (job.parts > 1) ++summary.split_jobs;
}

void finish(Totals& totals, std::int64_t gpus, Summary& summary) {
  std::vector<double>& waits = totals.waits;
  summary.jobs = waits.size();
  if (waits.empty()) return;
  std::sort(waits.begin(), waits.end());
  double wait_sum = 0;
  for (double wait : waits) wait_sum += wait;
  const auto count = static_cast<double>(waits.size());
  summary.mean_jct_s = totals.jct_sum / count;
  summary.mean_wait_s = wait_sum / count;
  summary.p50_wait_s = nearest_rank(waits, 50);
  summary.p99_wait_s = nearest_rank(waits, 99);
  summary.max_wait_s = waits.back();
  summary.makespan_s = seconds(totals.last_end - totals.first_submit);
  if (summary.makespan_s > 0 && gpus > 0)
    summary.gpu_utilization =
        summary.gpu_seconds / (static_cast<double>(gpus) * summary.makespan_s);
}

}  // namespace

double nearest_rank(const std::vector<double>& sorted, double percent) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(percent / 100.0 * static_cast<double>(sorted.size()));
  const auto index = static_cast<std::size_t>(std::max(rank, 1.0)) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

Summary summarize(const std::vector<JobOutcome>& jobs, std::optional<std::uint32_t> trace,
                  std::int64_t gpus, std::int64_t sla_ms) {
  Summary summary;
  Totals totals;
  for (const JobOutcome& job : jobs)
    if (!trace || job.trace == *trace) add_job(job, sla_ms, totals, summary);
  finish(totals, gpus, summary);
  return summary;
}

}  // namespace gantry::sim
