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

bool SchedulerCore::place_split(JobId id) {
  // A hard network topology keeps every replica in one domain, so never in
  // two clusters; the single-cluster reason stays.
  if (jobs_[id].gang.topology_hard()) return false;
  const std::int32_t placed = plan_split(id);
  Job& job = jobs_[id];
  if (placed >= job.gang.min_available && pass_.split.parts.size() >= 2) {
    commit_dispatch(id, pass_.split.parts);
    return true;
  }
  const std::size_t parts = pass_.split.parts.size();
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

// The parts, greedily on the clusters that could take a replica, in the
// policy's order (hub/split_planner.hpp), taking their resources. Returns the
// replicas placed; pass_.split.parts lists the parts (undo_split gives back).
std::int32_t SchedulerCore::plan_split(JobId id) {
  const Job& job = jobs_[id];
  const PlacementPolicy& policy = policy_for(job);
  pass_.candidates.clear();
  for (ClusterIndex c = 0; c < clusters_.size(); ++c) {
    const ClusterState& cluster = clusters_[c];
    if (!PlacementPolicy::eligible(cluster, c, job) || backed_off(job, c, pass_.now) ||
        !room_for_a_replica(cluster, job.gang))
      continue;
    pass_.candidates.push_back(
        ClusterRank{c, policy.score(ScoreInput{cluster, job, options_.topology_tiers}), 0});
  }
  std::sort(pass_.candidates.begin(), pass_.candidates.end(),
            [](const ClusterRank& a, const ClusterRank& b) {
              return a.score != b.score ? a.score > b.score : a.cluster < b.cluster;
            });
  return hub::plan_split(clusters_, pass_.candidates, job.gang, placer_, policy, id,
                         options_.max_split_parts, pass_.split);
}

void SchedulerCore::undo_split() {
  release_split(clusters_, pass_.split);
}

}  // namespace gantry::hub
