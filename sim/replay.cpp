#include "sim/replay.hpp"

#include <algorithm>
#include <queue>
#include <random>
#include <stdexcept>

#include "hub/gang.hpp"
#include "hub/scheduler.hpp"
#include "sim/empty_pool_fit.hpp"
#include "sim/pass_decisions.hpp"
#include "sim/replay_queues.hpp"

namespace gantry::sim {
namespace {

constexpr hub::TimeMs kMsPerSecond = 1000;

struct Completion {
  hub::TimeMs end_ms;
  hub::DispatchId dispatch;
  // Earliest end first; equal ends in dispatch order, so the replay is deterministic.
  bool operator>(const Completion& other) const {
    return end_ms != other.end_ms ? end_ms > other.end_ms : dispatch > other.dispatch;
  }
};

class ReplayEngine {
 public:
  ReplayEngine(const std::vector<SimCluster>& clusters, const std::vector<Trace>& traces,
               const ReplayConfig& config)
      : clusters_(clusters),
        traces_(traces),
        config_(config),
        options_(scheduler_options(config)),
        core_(options_),
        empty_pool_(options_) {
    if (clusters.size() != traces.size())
      throw std::invalid_argument("replay: " + std::to_string(traces.size()) + " traces but " +
                                  std::to_string(clusters.size()) + " clusters");
    check_replay_config(config, traces.size());
  }

  ReplayResult run() {
    add_clusters();
    add_replay_queues(core_, traces_, config_);
    make_outcomes();
    while (true) {
      drop_evicted_completions();
      if (next_submission_ == submission_order_.size() && running_.empty()) break;
      const hub::TimeMs now = next_event_time();
      finish_due(now);
      submit_due(now);
      start_decided(now);
    }
    return std::move(result_);
  }

 private:
  void add_clusters() {
    for (const auto& cluster : clusters_) {
      const hub::ClusterIndex index = core_.add_cluster(cluster.name);
      core_.report_usage(index, cluster.nodes, {});
      core_.set_cluster_ready(index, true);
      empty_pool_.add_cluster(core_.cluster(index));
    }
  }

  void make_outcomes() {
    std::mt19937_64 limits(config_.time_limit.seed);
    for (std::uint32_t t = 0; t < traces_.size(); ++t)
      for (std::uint32_t row = 0; row < traces_[t].jobs.size(); ++row) {
        JobOutcome& outcome = result_.jobs.emplace_back(not_yet_run(t, row));
        outcome.limit_ms = draw_limit_ms(config_.time_limit, outcome.duration_ms, limits);
      }
    submission_order_.resize(result_.jobs.size());
    for (std::uint32_t i = 0; i < submission_order_.size(); ++i) submission_order_[i] = i;
    // Ties keep trace order, then file order.
    std::stable_sort(submission_order_.begin(), submission_order_.end(),
                     [this](std::uint32_t a, std::uint32_t b) {
                       return result_.jobs[a].submit_ms < result_.jobs[b].submit_ms;
                     });
  }

  JobOutcome not_yet_run(std::uint32_t trace, std::uint32_t row) const {
    const TraceJob& job = traces_[trace].jobs[row];
    JobOutcome outcome;
    outcome.trace = trace;
    outcome.row = row;
    outcome.gpus = job.gpus;
    outcome.submit_ms = job.submit_s * kMsPerSecond;
    outcome.duration_ms = job.duration_s * kMsPerSecond;
    return outcome;
  }

  hub::TimeMs next_event_time() const {
    hub::TimeMs now = running_.empty() ? result_.jobs[submission_order_[next_submission_]].submit_ms
                                       : running_.top().end_ms;
    if (next_submission_ < submission_order_.size())
      now = std::min(now, result_.jobs[submission_order_[next_submission_]].submit_ms);
    return now;
  }

  // An evicted run never completes; its job runs again from the start later.
  void drop_evicted_completions() {
    while (!running_.empty() && core_.find_dispatch(running_.top().dispatch) == nullptr)
      running_.pop();
  }

  // Completions first: what ends at `now` frees room for what starts at `now`.
  void finish_due(hub::TimeMs now) {
    while (!running_.empty() && running_.top().end_ms == now) {
      const hub::DispatchId dispatch = running_.top().dispatch;
      const bool by_limit =
          result_.jobs[outcome_of_job_[core_.find_dispatch(dispatch)->job]].ends_by_limit();
      core_.finished(dispatch, by_limit ? hub::JobPhase::kFailed : hub::JobPhase::kCompleted,
                     by_limit ? "time limit" : "", now);
      running_.pop();
      drop_evicted_completions();
    }
  }

  void submit_due(hub::TimeMs now) {
    for (; next_submission_ < submission_order_.size(); ++next_submission_) {
      const std::uint32_t index = submission_order_[next_submission_];
      if (result_.jobs[index].submit_ms != now) break;
      submit(index, now);
    }
  }

  // A job that no allowed cluster could hold even when empty (nor, with
  // --split, the empty clusters together) would block a strict-FIFO queue
  // forever; it is left out and reported as unschedulable.
  void submit(std::uint32_t index, hub::TimeMs now) {
    const JobOutcome& outcome = result_.jobs[index];
    const Trace& trace = traces_[outcome.trace];
    hub::JobRequest request;
    request.gang = hub::make_gpu_gang(outcome.gpus, kGpusPerNode);
    if (!could_ever_run(outcome, request.gang)) return;
    request.name = trace.cluster_name + "/" + trace.jobs[outcome.row].id;
    request.queue = queue_for(trace, config_);
    if (config_.mode == Mode::kIsolated) request.allowed_clusters = {clusters_[outcome.trace].name};
    request.split_allowed = config_.split;
    request.sla_waiting_ms = config_.sla_ms;
    request.time_limit_ms = outcome.limit_ms;
    const hub::JobId id = core_.submit(std::move(request), now);
    if (id >= outcome_of_job_.size()) outcome_of_job_.resize(id + 1, 0);
    outcome_of_job_[id] = index;
  }

  bool could_ever_run(const JobOutcome& outcome, const hub::GangShape& gang) {
    if (config_.mode == Mode::kIsolated)
      return empty_pool_.fits_cluster(outcome.trace, outcome.gpus, gang);
    return empty_pool_.fits_some_cluster(outcome.gpus, gang) ||
           (config_.split && empty_pool_.fits_split(outcome.gpus, gang));
  }

  void start_decided(hub::TimeMs now) {
    const PassDecisions decided = split_pass_decisions(core_.schedule(now));
    core_.take_reason_changes(reason_changes_);  // the hub's events; the simulator keeps none
    result_.withdrawn_dispatches += decided.withdrawn;
    for (const hub::Decision& decision : decided.evictions) stop_evicted(decision, now);
    for (const hub::Decision& decision : decided.dispatches) start(decision, now);
  }

  // Its pending completion is dropped by drop_evicted_completions; the job
  // starts over when it is placed again (traces say nothing of checkpoints).
  void stop_evicted(const hub::Decision& decision, hub::TimeMs now) {
    JobOutcome& outcome = result_.jobs[outcome_of_job_[decision.job]];
    outcome.ran = false;
    ++outcome.evictions;
    outcome.lost_ms += now - outcome.start_ms;
    ++result_.evictions;
  }

  // Admitted at once: the simulated agent has no delay.
  void start(const hub::Decision& decision, hub::TimeMs now) {
    JobOutcome& outcome = result_.jobs[outcome_of_job_[decision.job]];
    core_.admitted(decision.dispatch, now);
    outcome.ran = true;
    outcome.start_ms = now;
    outcome.cluster = decision.cluster;
    outcome.parts = static_cast<std::int32_t>(core_.find_dispatch(decision.dispatch)->parts.size());
    running_.push(Completion{outcome.end_ms(), decision.dispatch});
  }

  const std::vector<SimCluster>& clusters_;
  const std::vector<Trace>& traces_;
  ReplayConfig config_;
  hub::SchedulerOptions options_;
  hub::SchedulerCore core_;
  std::vector<hub::JobId> reason_changes_;  // taken after each pass, reused
  EmptyPoolFit empty_pool_;
  ReplayResult result_;
  std::vector<std::uint32_t> submission_order_;  // outcome indices by submit time
  std::size_t next_submission_ = 0;
  std::vector<std::uint32_t> outcome_of_job_;  // by hub::JobId
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> running_;
};

}  // namespace

ReplayResult replay(const std::vector<SimCluster>& clusters, const std::vector<Trace>& traces,
                    const ReplayConfig& config) {
  return ReplayEngine(clusters, traces, config).run();
}

}  // namespace gantry::sim
