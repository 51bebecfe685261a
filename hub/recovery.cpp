// Taking back what member clusters still run, or finished, while the hub was
// away: the store brings every unfinished job back as pending, and each agent
// lists its runs when it says Hello to the new hub.

#include <algorithm>
#include <optional>

#include "hub/scheduler.hpp"

namespace gantry::hub {

namespace {

std::optional<std::uint32_t> task_index(const GangShape& gang, const std::string& name) {
  for (std::uint32_t t = 0; t < gang.tasks.size(); ++t)
    if (gang.tasks[t].name == name) return t;
  return std::nullopt;
}

}  // namespace

bool SchedulerCore::adopt(JobId id, DispatchId dispatch_id, std::span<const AdoptedPart> parts,
                          TimeMs now) {
  if (id >= jobs_.size() || parts.empty() || dispatches_.count(dispatch_id)) return false;
  Job& job = jobs_[id];
  if (job.phase != JobPhase::kPending) return false;
  // Parts in their dispatch order: part 0 holds rank 0.
  std::vector<const AdoptedPart*> ordered;
  for (const AdoptedPart& part : parts) ordered.push_back(&part);
  std::sort(ordered.begin(), ordered.end(),
            [](const AdoptedPart* a, const AdoptedPart* b) { return a->part < b->part; });
  std::vector<std::vector<NodeAssignment>> assignments;
  std::vector<PartPlacement> placements;
  std::int32_t replicas = 0;
  for (const AdoptedPart* part : ordered) {
    if (part->cluster >= clusters_.size() || part->replicas == nullptr) return false;
    const ClusterState& cluster = clusters_[part->cluster];
    std::vector<NodeAssignment>& assignment = assignments.emplace_back();
    for (const protocol::PlacedReplica& replica : *part->replicas) {
      const std::optional<std::uint32_t> task = task_index(job.gang, replica.task);
      const std::optional<NodeIndex> node = cluster.find_node(replica.node);
      if (!task || !node) return false;
      assignment.push_back(
          NodeAssignment{*task, *node, cluster.held_on(*node, job.gang.tasks[*task].per_replica)});
    }
    replicas += static_cast<std::int32_t>(assignment.size());
  }
  if (replicas < job.gang.min_available) return false;
  for (std::size_t i = 0; i < ordered.size(); ++i)
    placements.push_back(PartPlacement{ordered[i]->cluster, assignments[i]});
  ++job.epoch;
  // Not awaiting a report: the agents' usage reports already count what they hold.
  Dispatch& dispatch = install_dispatch(id, dispatch_id, placements, false);
  // Its start is not known: planned as if it started now (a later end is safe).
  plan_run_end(dispatch, now);
  dispatch.committed = true;
  dispatch.committed_ms = now;  // its start is not known: its minimum runtime counts from now
  for (DispatchPart& part : dispatch.parts) part.state = PartState::kCommitted;
  job.phase = JobPhase::kRunning;
  job.started_ms = now;
  return true;
}

bool SchedulerCore::adopt(JobId id, ClusterIndex cluster, DispatchId dispatch,
                          const std::vector<protocol::PlacedReplica>& replicas, TimeMs now) {
  const AdoptedPart part{cluster, 0, &replicas};
  return adopt(id, dispatch, std::span<const AdoptedPart>(&part, 1), now);
}

void SchedulerCore::ended_while_away(JobId id, ClusterIndex cluster, JobPhase phase,
                                     std::string_view message, TimeMs now) {
  if (id >= jobs_.size() || jobs_[id].phase != JobPhase::kPending) return;
  Job& job = jobs_[id];
  dequeue(id);
  job.phase = phase == JobPhase::kFailed ? JobPhase::kFailed : JobPhase::kCompleted;
  job.cluster = cluster;
  job.finished_ms = now;
  if (job.started_ms == 0) job.started_ms = now;
  job.edit_history().message = std::string(message);
  job.reason = PendingReason{PendingReason::Kind::kNone};
}

void SchedulerCore::fenced_while_away(JobId id, ClusterIndex cluster, TimeMs now) {
  if (id >= jobs_.size() || jobs_[id].phase != JobPhase::kPending) return;
  dequeue(id);  // requeued below, as an eviction
  PendingReason reason{PendingReason::Kind::kFenced};
  reason.cluster = cluster;
  requeue_or_apply(id, reason, LifecycleEvent::kPodEvicted, now);
}

}  // namespace gantry::hub
