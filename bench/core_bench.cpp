#include "bench/core_bench.hpp"

#include <chrono>
#include <cstdio>
#include <queue>
#include <random>
#include <stdexcept>

#include "bench/gpu_sizes.hpp"
#include "bench/process_memory.hpp"
#include "hub/gang.hpp"
#include "hub/placement_policy.hpp"

namespace gantry::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::int64_t kGpusPerNode = 8;
// Job durations only order the completions; exponential around the ITP mean
// (about 5 hours) keeps many jobs running at once, as in a real cluster.
constexpr double kMeanDurationMs = 5.0 * 3600 * 1000;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Completion {
  hub::TimeMs end_ms;
  hub::DispatchId dispatch;
  bool operator>(const Completion& other) const {
    return end_ms != other.end_ms ? end_ms > other.end_ms : dispatch > other.dispatch;
  }
};

// The hub's defaults (reclaim and preemption on) unless --no-evictions.
hub::SchedulerOptions scheduler_options(const CoreBenchOptions& options) {
  hub::SchedulerOptions core_options;
  core_options.default_strategy = options.strategy;
  if (!options.evictions) core_options.reclaim = core_options.preemption = false;
  core_options.skip_failing_shapes = options.skip_failing_shapes;
  core_options.walk_over_share_only = options.skip_failing_shapes;
  const hub::PlacementPolicy* placement = hub::find_placement_policy(options.placement);
  if (placement == nullptr)
    throw std::invalid_argument("--placement: expected one of " + hub::placement_policy_names() +
                                " (got \"" + options.placement + "\")");
  core_options.placement = *placement;
  return core_options;
}

class CoreBench {
 public:
  explicit CoreBench(const CoreBenchOptions& options)
      : options_(options),
        random_(options.seed),
        sizes_(options.trace_dir ? itp_sizes_from(*options.trace_dir) : builtin_itp_sizes()),
        duration_ms_(1.0 / kMeanDurationMs),
        core_(scheduler_options(options)) {}

  CoreBenchResult run() {
    result_.mean_job_gpus = sizes_.mean();
    add_clusters();
    add_queues();
    submit_backlog();
    first_pass();
    steady_state();
    return std::move(result_);
  }

 private:
  void add_clusters() {
    for (std::uint32_t c = 0; c < options_.clusters; ++c) {
      char name[32];
      std::snprintf(name, sizeof name, "c%03u", c);
      std::vector<hub::NodeSpec> nodes(options_.nodes);
      for (std::uint32_t n = 0; n < options_.nodes; ++n) {
        nodes[n].name = std::string(name) + "-n" + std::to_string(n);
        nodes[n].allocatable.set(hub::kGpu, kGpusPerNode * hub::kMilli);
      }
      const hub::ClusterIndex index = core_.add_cluster(name);
      core_.report_usage(index, nodes, {});
      core_.set_cluster_ready(index, true);
    }
  }

  void add_queues() {
    for (std::uint32_t q = 0; q < options_.queues; ++q) {
      const hub::QueueIndex index = core_.ensure_queue("q" + std::to_string(q));
      core_.set_queue_strategy(index, options_.strategy);
    }
  }

  void submit_one(hub::TimeMs now) {
    hub::JobRequest request;
    request.name = "j" + std::to_string(next_job_++);
    request.queue = "q" + std::to_string(random_() % options_.queues);
    request.gang = hub::make_gpu_gang(sizes_(random_), kGpusPerNode);
    request.split_allowed = options_.split;
    core_.submit(std::move(request), now);
  }

  // Resident growth over the whole backlog: what the core keeps per pending job.
  void submit_backlog() {
    const std::int64_t before = resident_bytes();
    const auto start = Clock::now();
    for (std::uint32_t j = 0; j < options_.jobs; ++j) submit_one(0);
    result_.submit_seconds = seconds_since(start);
    result_.memory_bytes = resident_bytes() - before;
  }

  // Returns the dispatches the pass decided; evictions are counted apart.
  std::size_t timed_pass(hub::TimeMs now, double& seconds) {
    const auto start = Clock::now();
    const std::vector<hub::Decision>& decisions = core_.schedule(now);
    seconds = seconds_since(start);
    core_.take_reason_changes(reason_changes_);  // as the hub takes them, for its events
    std::size_t dispatches = 0;
    hub::DispatchId last_evicted = 0;
    for (const hub::Decision& decision : decisions) {
      // A split dispatch is evicted with one decision per part, one after another.
      if (decision.kind == hub::Decision::Kind::kEvict) {
        if (decision.dispatch != last_evicted) ++result_.evictions;
        last_evicted = decision.dispatch;
        continue;
      }
      ++dispatches;
      core_.admitted(decision.dispatch, now);
      const auto duration = static_cast<hub::TimeMs>(duration_ms_(random_)) + 1;
      running_.push(Completion{now + duration, decision.dispatch});
    }
    return dispatches;
  }

  // An evicted dispatch never completes.
  void drop_evicted_completions() {
    while (!running_.empty() && core_.find_dispatch(running_.top().dispatch) == nullptr)
      running_.pop();
  }

  void first_pass() {
    const std::int64_t before = resident_bytes();
    const ProcessTimes times_before = process_times();
    result_.first_pass_decisions = timed_pass(0, result_.first_pass_seconds);
    result_.first_pass_times = process_times() - times_before;
    result_.first_pass_memory_bytes = resident_bytes() - before;
  }

  void steady_state() {
    while (result_.events < options_.events && result_.schedule_seconds < options_.max_seconds) {
      drop_evicted_completions();
      if (running_.empty()) break;
      const Completion ended = running_.top();
      running_.pop();
      const auto change = Clock::now();
      core_.finished(ended.dispatch, hub::JobPhase::kCompleted, "", ended.end_ms);
      submit_one(ended.end_ms);
      double seconds = 0;
      const std::uint64_t attempts_before = core_.placement_attempts();
      result_.decisions += timed_pass(ended.end_ms, seconds);
      result_.change_to_decision_ms.push_back(seconds_since(change) * 1e3);
      const std::uint64_t attempts = core_.placement_attempts() - attempts_before;
      result_.attempts += attempts;
      if (attempts > 0)
        result_.decision_us.push_back(seconds * 1e6 / static_cast<double>(attempts));
      result_.schedule_seconds += seconds;
      result_.pass_us.push_back(seconds * 1e6);
      ++result_.events;
    }
  }

  CoreBenchOptions options_;
  std::mt19937_64 random_;
  GpuSizeSampler sizes_;
  std::exponential_distribution<double> duration_ms_;
  hub::SchedulerCore core_;
  std::vector<hub::JobId> reason_changes_;  // taken after each pass, reused
  std::uint64_t next_job_ = 0;
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> running_;
  CoreBenchResult result_;
};

}  // namespace

CoreBenchResult run_core_bench(const CoreBenchOptions& options) {
  return CoreBench(options).run();
}

}  // namespace gantry::bench
