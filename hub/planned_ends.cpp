// When runs are planned to end: by their time limits, or by the runtimes their
// queue's ended runs show (PlannedRuntimes::kLearned), and on which nodes, so
// that backfill plans (backfill.cpp) and node choice in time
// (placement_policy.cpp) see the same ends.
#include <algorithm>

#include "hub/scheduler.hpp"

namespace gantry::hub {

TimeMs SchedulerCore::expected_end(const Job& job, TimeMs start) const {
  if (job.time_limit_ms <= 0) return kNever;
  if (options_.planned_runtimes == PlannedRuntimes::kLimits ||
      job.queue >= runtime_estimates_.size())
    return start + job.time_limit_ms;
  return start + runtime_estimates_[job.queue].expected_runtime(job.time_limit_ms);
}

// A run starts (or is placed, or is taken back) at `start`.
void SchedulerCore::plan_run_end(Dispatch& dispatch, TimeMs start) {
  const Job& job = jobs_[dispatch.job];
  dispatch.limit_end = end_if_started(job, start);
  set_planned_end(dispatch, expected_end(job, start));
}

void SchedulerCore::set_planned_end(Dispatch& dispatch, TimeMs end) {
  move_planned_end(dispatch, end);
  count_on_nodes(dispatch, true);
}

// The run ends (or is evicted, or withdrawn): nothing plans on it any more.
void SchedulerCore::forget_planned_end(Dispatch& dispatch) {
  move_planned_end(dispatch, kNever);
}

// Moves the run's end in its clusters' lists of ends; the run is left
// uncounted on its nodes' drain times.
void SchedulerCore::move_planned_end(Dispatch& dispatch, TimeMs end) {
  for (const DispatchPart& part : dispatch.parts)
    backfill_.move_end(part.cluster, dispatch.id, dispatch.planned_end, end);
  count_on_nodes(dispatch, false);
  dispatch.planned_end = end;
}

// Adds the dispatch's planned end to (or removes it from) the drain time of
// every node its replicas run on. A part that ended before the gang's others
// still counts until the dispatch ends: a later drain time is only cautious.
void SchedulerCore::count_on_nodes(Dispatch& dispatch, bool counted) {
  if (dispatch.ends_on_nodes == counted) return;
  for (const DispatchPart& part : dispatch.parts)
    for (const NodeAssignment& entry : part.assignment) {
      ClusterState& cluster = clusters_[part.cluster];
      if (counted)
        cluster.add_planned_end(entry.node, dispatch.planned_end);
      else
        cluster.remove_planned_end(entry.node, dispatch.planned_end);
    }
  dispatch.ends_on_nodes = counted;
}

// One replica added to or taken from a counted dispatch (elastic jobs).
void SchedulerCore::count_replica_end(const Dispatch& dispatch, ClusterIndex c, NodeIndex node,
                                      bool counted) {
  if (!dispatch.ends_on_nodes) return;
  if (counted)
    clusters_[c].add_planned_end(node, dispatch.planned_end);
  else
    clusters_[c].remove_planned_end(node, dispatch.planned_end);
}

// A job with a time limit ended after running from its start to `now`.
void SchedulerCore::learn_runtime(const Job& job, TimeMs now) {
  if (options_.planned_runtimes != PlannedRuntimes::kLearned || job.time_limit_ms <= 0 ||
      job.started_ms <= 0 || now < job.started_ms)
    return;
  if (runtime_estimates_.size() <= job.queue) runtime_estimates_.resize(job.queue + 1);
  runtime_estimates_[job.queue].observe(now - job.started_ms, job.time_limit_ms);
}

// A run still going past its expected end is planned to its limit from now on:
// whatever made it longer than its queue's usual, a plan should not count on
// it ending any moment. O(runs past their expected end) per pass.
void SchedulerCore::plan_overrun_runs_to_limits(TimeMs now) {
  if (options_.planned_runtimes != PlannedRuntimes::kLearned) return;
  for (ClusterIndex c = 0; c < clusters_.size(); ++c) {
    overrun_scratch_.clear();
    for (const auto& [end, id] : backfill_.ends_on(c)) {
      if (end >= now) break;
      overrun_scratch_.push_back(id);
    }
    for (DispatchId id : overrun_scratch_) {
      Dispatch& dispatch = dispatches_.at(id);
      if (dispatch.planned_end < dispatch.limit_end) set_planned_end(dispatch, dispatch.limit_end);
    }
  }
}

}  // namespace gantry::hub
