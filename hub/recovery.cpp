// Taking back what member clusters still run, or finished, while the hub was
// away: the store brings every unfinished job back as pending, and each agent
// lists its runs when it says Hello to the new hub.

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

bool SchedulerCore::adopt(JobId id, ClusterIndex cluster_index, DispatchId dispatch_id,
                          const std::vector<protocol::PlacedReplica>& replicas, TimeMs now) {
  if (id >= jobs_.size() || cluster_index >= clusters_.size() || dispatches_.count(dispatch_id))
    return false;
  Job& job = jobs_[id];
  if (job.phase != JobPhase::kPending) return false;
  const ClusterState& cluster = clusters_[cluster_index];
  std::vector<NodeAssignment> assignment;
  assignment.reserve(replicas.size());
  for (const protocol::PlacedReplica& replica : replicas) {
    const std::optional<std::uint32_t> task = task_index(job.gang, replica.task);
    const std::optional<NodeIndex> node = cluster.find_node(replica.node);
    if (!task || !node) return false;
    assignment.push_back(
        NodeAssignment{*task, *node, cluster.held_on(*node, job.gang.tasks[*task].per_replica)});
  }
  if (static_cast<std::int32_t>(assignment.size()) < job.gang.min_available) return false;
  // Not awaiting a report: the agent's usage report already counts what it holds.
  install_dispatch(id, cluster_index, dispatch_id, assignment, false);
  job.phase = JobPhase::kRunning;
  job.started_ms = now;
  return true;
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
  job.message = std::string(message);
  job.reason = PendingReason{PendingReason::Kind::kNone};
}

}  // namespace gantry::hub
