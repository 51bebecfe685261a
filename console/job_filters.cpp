#include "console/job_filters.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "console/duration.hpp"
#include "console/json_fields.hpp"
#include "console/table.hpp"

namespace gantry::console {

namespace {

constexpr double kMsPerHour = 3600.0 * 1000.0;

bool ended(const protocol::JobInfo& job) {
  return job.finished_ms > 0;
}

std::int64_t window_start(std::optional<std::chrono::milliseconds> since, std::int64_t now_ms) {
  return since ? now_ms - since->count() : 0;
}

double requested_gpus(const protocol::JobInfo& job) {
  const auto found = job.requests.find("nvidia.com/gpu");
  return found == job.requests.end() ? 0.0 : static_cast<double>(found->second) / 1000.0;
}

std::string hours(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

}  // namespace

std::vector<protocol::JobInfo> filter_jobs(std::vector<protocol::JobInfo> jobs,
                                           const JobFilter& filter, std::int64_t now_ms) {
  const std::int64_t from = window_start(filter.since, now_ms);
  std::erase_if(jobs, [&](const protocol::JobInfo& job) {
    if (!filter.phase.empty() && job.phase != filter.phase) return true;
    if (!filter.queue.empty() && job.queue != filter.queue) return true;
    if (!filter.cluster.empty() &&
        std::find(job.clusters.begin(), job.clusters.end(), filter.cluster) == job.clusters.end())
      return true;
    if (!matches(filter.labels, job.labels)) return true;
    return filter.since && ended(job) && job.finished_ms < from;
  });
  return jobs;
}

std::vector<QueueUsage> queue_usage(const std::vector<protocol::JobInfo>& jobs,
                                    std::optional<std::chrono::milliseconds> since,
                                    std::int64_t now_ms) {
  const std::int64_t from = window_start(since, now_ms);
  std::map<std::string, QueueUsage> by_queue;
  for (const protocol::JobInfo& job : jobs) {
    if (job.started_ms <= 0) continue;  // never ran
    const std::int64_t run_end = ended(job) ? job.finished_ms : now_ms;
    const std::int64_t in_window = std::min(run_end, now_ms) - std::max(job.started_ms, from);
    if (in_window < 0 || (in_window == 0 && run_end < from)) continue;
    QueueUsage& usage = by_queue[job.queue];
    usage.queue = job.queue;
    ++usage.jobs;
    usage.gpu_hours += requested_gpus(job) * static_cast<double>(in_window) / kMsPerHour;
    if (job.started_ms >= from) {
      const std::int64_t wait = std::max<std::int64_t>(0, job.started_ms - job.submitted_ms);
      ++usage.started;
      usage.total_wait_ms += wait;
      usage.max_wait_ms = std::max(usage.max_wait_ms, wait);
    }
  }
  std::vector<QueueUsage> out;
  for (auto& [name, usage] : by_queue) out.push_back(usage);
  return out;
}

std::string render_usage_table(const std::vector<QueueUsage>& usage) {
  Table table({"QUEUE", "JOBS", "GPU-HOURS", "MEAN-WAIT", "MAX-WAIT"});
  for (const QueueUsage& queue : usage) {
    const std::int64_t mean = queue.started > 0 ? queue.total_wait_ms / queue.started : 0;
    table.add_row({queue.queue, std::to_string(queue.jobs), hours(queue.gpu_hours),
                   queue.started > 0 ? format_age(mean) : "-",
                   queue.started > 0 ? format_age(queue.max_wait_ms) : "-"});
  }
  return table.render();
}

std::string render_usage_json(const std::vector<QueueUsage>& usage) {
  Json out = Json::array();
  for (const QueueUsage& queue : usage) {
    out.push_back({{"queue", queue.queue},
                   {"jobs", queue.jobs},
                   {"gpuHours", queue.gpu_hours},
                   {"started", queue.started},
                   {"meanWaitMs", queue.started > 0 ? queue.total_wait_ms / queue.started : 0},
                   {"maxWaitMs", queue.max_wait_ms}});
  }
  return json_text(out);
}

}  // namespace gantry::console
