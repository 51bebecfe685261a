// gantry get jobs --phase P --queue Q --cluster C --since D, and get usage --since D: which jobs
// a listing keeps, and what each queue used over a window (what Slurm's
// sacct --state/--starttime and sreport give its users).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "console/label_selector.hpp"
#include "protocol/messages.hpp"

namespace gantry::console {

struct JobFilter {
  std::string phase;                               // "" = any
  std::string queue;                               // "" = any
  std::string cluster;                             // "" = any; else one it runs or ran on
  std::optional<std::chrono::milliseconds> since;  // unset = any time
  LabelSelector labels{};                          // -l; empty = any
};

// Keeps the jobs in `phase`, in `queue`, placed on `cluster` (now or before)
// that were active in the window: not ended yet, or ended within `since` of
// `now_ms`.
std::vector<protocol::JobInfo> filter_jobs(std::vector<protocol::JobInfo> jobs,
                                           const JobFilter& filter, std::int64_t now_ms);

// One queue's use over the window.
struct QueueUsage {
  std::string queue;
  std::int64_t jobs = 0;           // jobs that ran in the window
  double gpu_hours = 0;            // requested GPUs x hours run in the window
  std::int64_t started = 0;        // jobs that started in the window (their waits below)
  std::int64_t total_wait_ms = 0;  // submission to start
  std::int64_t max_wait_ms = 0;
};

// By queue name. A job's run is [started, finished or now]; only its part
// in [now - since, now] counts (all of it without `since`).
std::vector<QueueUsage> queue_usage(const std::vector<protocol::JobInfo>& jobs,
                                    std::optional<std::chrono::milliseconds> since,
                                    std::int64_t now_ms);

std::string render_usage_table(const std::vector<QueueUsage>& usage);
std::string render_usage_json(const std::vector<QueueUsage>& usage);

}  // namespace gantry::console
