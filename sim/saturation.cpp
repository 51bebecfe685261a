#include "sim/saturation.hpp"

#include <cmath>
#include <functional>
#include <queue>

#include "hub/scheduler.hpp"
#include "sim/cluster_layout.hpp"
#include "sim/pass_decisions.hpp"
#include "sim/replay_queues.hpp"

namespace gantry::sim {
namespace {

struct Completion {
  hub::TimeMs end_ms;
  hub::DispatchId dispatch;
  bool operator>(const Completion& other) const {
    return end_ms != other.end_ms ? end_ms > other.end_ms : dispatch > other.dispatch;
  }
};

// Job j of queue q: a spread over [min, max] that does not line up with the
// order of submission (a multiplicative hash), so completions interleave.
hub::TimeMs duration_of(const SaturationSetup& setup, std::size_t q, std::int32_t j) {
  constexpr std::uint64_t kSteps = 1009;  // prime: the hash visits every step
  const std::uint64_t step = (static_cast<std::uint64_t>(j) * 613 + q * 389) % kSteps;
  const hub::TimeMs span = setup.max_duration_ms - setup.min_duration_ms;
  return setup.min_duration_ms +
         static_cast<hub::TimeMs>(static_cast<double>(span) * static_cast<double>(step) /
                                  static_cast<double>(kSteps - 1));
}

hub::QueueSpec queue_spec(const SaturationQueue& queue, bool with_guarantee) {
  hub::QueueSpec spec;
  spec.name = queue.name;
  spec.weight = queue.weight;
  spec.reclaimable = queue.reclaimable;
  if (with_guarantee && queue.guarantee_gpus > 0)
    spec.guarantee.set(hub::kGpu, queue.guarantee_gpus * hub::kMilli);
  return spec;
}

class SaturationEngine {
 public:
  explicit SaturationEngine(const SaturationSetup& setup) : setup_(setup), core_(options(setup)) {
    const hub::ClusterIndex cluster = core_.add_cluster("pool");
    core_.report_usage(cluster, identical_gpu_nodes("pool", setup.nodes), {});
    core_.set_cluster_ready(cluster, true);
    exclude_default_queue_from_shares(core_);
    for (const SaturationQueue& queue : setup.queues)
      queue_index_.push_back(core_.apply_queue(queue_spec(queue, queue.guarantee_pass == 0)));
    run_.pool_gpus = setup.nodes * kGpusPerNode;
  }

  SaturationRun run() {
    for (std::int32_t pass = 0; pass < setup_.passes; ++pass) {
      const hub::TimeMs now = pass * setup_.pass_interval_ms;
      finish_due(now);
      apply_late_guarantees(pass);
      submit_arrivals(pass, now);
      apply(core_.schedule(now), now);
      core_.take_reason_changes(reason_changes_);  // the hub's events; none here
      sample();
    }
    return std::move(run_);
  }

 private:
  static hub::SchedulerOptions options(const SaturationSetup& setup) {
    hub::SchedulerOptions options;
    options.reclaim = setup.reclaim;
    options.preemption = false;
    return options;
  }

  // Each completion at its own time, before the pass at `now`.
  void finish_due(hub::TimeMs now) {
    while (!running_.empty() && running_.top().end_ms <= now) {
      core_.finished(running_.top().dispatch, hub::JobPhase::kCompleted, "", running_.top().end_ms);
      running_.pop();
    }
  }

  void apply_late_guarantees(std::int32_t pass) {
    for (const SaturationQueue& queue : setup_.queues)
      if (pass > 0 && queue.guarantee_pass == pass) core_.apply_queue(queue_spec(queue, true));
  }

  void submit_arrivals(std::int32_t pass, hub::TimeMs now) {
    for (std::size_t q = 0; q < setup_.queues.size(); ++q) {
      const SaturationQueue& queue = setup_.queues[q];
      if (queue.arrival_pass != pass || queue.job_gpus.empty()) continue;
      for (std::int32_t j = 0; j < queue.jobs; ++j) submit(q, j, now);
    }
  }

  void submit(std::size_t q, std::int32_t j, hub::TimeMs now) {
    const SaturationQueue& queue = setup_.queues[q];
    hub::JobRequest request;
    request.name = queue.name + "-" + std::to_string(j);
    request.queue = queue.name;
    request.gang = hub::make_gpu_gang(queue.job_gpus[j % queue.job_gpus.size()], kGpusPerNode);
    const hub::JobId id = core_.submit(std::move(request), now);
    if (id >= duration_of_job_.size()) duration_of_job_.resize(id + 1, 0);
    duration_of_job_[id] = duration_of(setup_, q, j);
  }

  // An evicted run's completion stays queued; finished() ignores its dispatch.
  void apply(const std::vector<hub::Decision>& decisions, hub::TimeMs now) {
    const PassDecisions decided = split_pass_decisions(decisions);
    for (const hub::Decision& decision : decided.dispatches) {
      core_.admitted(decision.dispatch, now);
      running_.push(Completion{now + duration_of_job_[decision.job], decision.dispatch});
    }
    run_.evictions.push_back(decided.evictions.size());
    run_.withdrawn += decided.withdrawn;
  }

  void sample() {
    std::vector<std::int64_t> held;
    for (hub::QueueIndex q : queue_index_) held.push_back(core_.queues().node(q).allocated.gpus());
    run_.held.push_back(std::move(held));
  }

  const SaturationSetup& setup_;
  hub::SchedulerCore core_;
  std::vector<hub::JobId> reason_changes_;  // taken after each pass, reused
  std::vector<hub::QueueIndex> queue_index_;
  std::vector<hub::TimeMs> duration_of_job_;  // by hub::JobId
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> running_;
  SaturationRun run_;
};

}  // namespace

SaturationRun run_saturation(const SaturationSetup& setup) {
  return SaturationEngine(setup).run();
}

std::vector<double> weighted_split(const SaturationSetup& setup) {
  double total_weight = 0;
  for (const SaturationQueue& queue : setup.queues) total_weight += queue.weight;
  std::vector<double> targets;
  const auto pool = static_cast<double>(setup.nodes * kGpusPerNode);
  for (const SaturationQueue& queue : setup.queues)
    targets.push_back(total_weight > 0 ? pool * queue.weight / total_weight : 0);
  return targets;
}

std::optional<std::size_t> settled_from(const SaturationRun& run,
                                        const std::vector<double>& targets, double tolerance) {
  std::optional<std::size_t> settled;
  for (std::size_t pass = 0; pass < run.held.size(); ++pass) {
    bool within = true;
    for (std::size_t q = 0; q < targets.size() && q < run.held[pass].size(); ++q)
      within = within && std::abs(static_cast<double>(run.held[pass][q]) - targets[q]) <=
                             tolerance * targets[q];
    if (!within)
      settled.reset();
    else if (!settled)
      settled = pass;
  }
  return settled;
}

}  // namespace gantry::sim
