// Atomic split gangs: a job annotated gantry.io/split: allowed that fits no
// single cluster may be placed across several, each part a gang of whole
// replicas, minAvailable counting over every part. Fewest parts first: each
// step takes the cluster that holds the most of the replicas still to place
// (for a one-task gang that is the fewest parts possible), ties to the higher
// policy score, then the lower index. The parts are prepared and committed
// together (two-phase dispatch), so the gang is never half started.
#include <algorithm>

#include "hub/scheduler.hpp"

namespace gantry::hub {

namespace {

// Whether one replica of some task still to place fits the cluster's free total.
bool room_for_a_replica(const ClusterState& cluster, const GangShape& rest) {
  for (const TaskShape& task : rest.tasks)
    if (task.replicas > 0 && task.per_replica.fits_in(cluster.total_free())) return true;
  return false;
}

}  // namespace

bool SchedulerCore::place_split(JobId id) {
  const std::int32_t placed = plan_split(id);
  Job& job = jobs_[id];
  if (placed >= job.gang.min_available && pass_.split_parts.size() >= 2) {
    commit_dispatch(id, pass_.split_parts);
    return true;
  }
  const std::size_t parts = pass_.split_parts.size();
  undo_split();
  // Only a shortage is worth restating; no ready cluster etc. stays as found.
  const PendingReason::Kind single = job.reason.kind;
  if (single == PendingReason::Kind::kExceedsEveryCluster ||
      single == PendingReason::Kind::kInsufficientCapacity ||
      single == PendingReason::Kind::kGangDoesNotFitNodes) {
    PendingReason reason{PendingReason::Kind::kSplitDoesNotFit};
    reason.replicas_needed = job.gang.min_available;
    reason.replicas_placed = placed;
    reason.needed = static_cast<std::int64_t>(parts);
    job.reason = reason;
  }
  return false;
}

// Places parts greedily, taking their resources, until minAvailable replicas
// are placed, no cluster takes more, or the part limit is reached. Returns the
// replicas placed; pass_.split_parts lists the parts (undo_split gives back).
std::int32_t SchedulerCore::plan_split(JobId id) {
  const Job& job = jobs_[id];
  const PlacementPolicy& policy = policy_for(job);
  GangShape& rest = pass_.split_rest;
  rest = job.gang;
  rest.min_available = 1;
  pass_.split_parts.clear();
  // Every cluster that could take a replica, with its policy score.
  pass_.candidates.clear();
  for (ClusterIndex c = 0; c < clusters_.size(); ++c) {
    const ClusterState& cluster = clusters_[c];
    if (!PlacementPolicy::eligible(cluster, c, job) ||
        PlacementPolicy::backed_off(job, c, pass_.now) || !room_for_a_replica(cluster, rest))
      continue;
    pass_.candidates.push_back(ClusterRank{c, policy.score(cluster, job), 0});
  }
  std::sort(pass_.candidates.begin(), pass_.candidates.end(),
            [](const ClusterRank& a, const ClusterRank& b) {
              return a.score != b.score ? a.score > b.score : a.cluster < b.cluster;
            });
  std::int32_t placed = 0;
  while (placed < job.gang.min_available && pass_.split_parts.size() < options_.max_split_parts) {
    ClusterIndex best = kNoCluster;
    std::int32_t best_count = 0;
    for (const ClusterRank& candidate : pass_.candidates) {  // best score first: ties keep it
      const ClusterIndex c = candidate.cluster;
      const bool used = std::any_of(pass_.split_parts.begin(), pass_.split_parts.end(),
                                    [c](const PartPlacement& part) { return part.cluster == c; });
      if (used) continue;
      const FitResult fit = placer_.check(clusters_[c], rest, id, &policy);
      if (fit.fits && fit.placed > best_count) {
        best = c;
        best_count = fit.placed;
      }
    }
    if (best == kNoCluster) break;
    const std::size_t slot = pass_.split_parts.size();
    if (pass_.split_assignments.size() <= slot) pass_.split_assignments.resize(slot + 1);
    std::vector<NodeAssignment>& assignment = pass_.split_assignments[slot];
    const FitResult fit = placer_.place(clusters_[best], rest, assignment, id, &policy);
    for (const NodeAssignment& entry : assignment) --rest.tasks[entry.task].replicas;
    placed += fit.placed;
    pass_.split_parts.push_back(PartPlacement{best, assignment});
  }
  return placed;
}

void SchedulerCore::undo_split() {
  for (std::size_t i = 0; i < pass_.split_parts.size(); ++i)
    release(clusters_[pass_.split_parts[i].cluster], pass_.split_assignments[i]);
  pass_.split_parts.clear();
}

}  // namespace gantry::hub
