#include "hub/split_planner.hpp"

#include <algorithm>

namespace gantry::hub {

bool room_for_a_replica(const ClusterState& cluster, const GangShape& rest) {
  for (const TaskShape& task : rest.tasks)
    if (task.replicas > 0 && task.per_replica.fits_in(cluster.total_free())) return true;
  return false;
}

std::int32_t plan_split(std::vector<ClusterState>& clusters,
                        std::span<const ClusterRank> candidates, const GangShape& gang,
                        GangPlacer& placer, const PlacementPolicy& policy, std::uint32_t requester,
                        std::uint32_t max_parts, SplitScratch& scratch) {
  scratch.rest = gang;
  scratch.rest.min_available = 1;  // each part: as many replicas as its cluster holds
  scratch.parts.clear();
  std::int32_t placed = 0;
  while (placed < gang.min_available && scratch.parts.size() < max_parts) {
    ClusterIndex best = kNoCluster;
    std::int32_t best_count = 0;
    for (const ClusterRank& candidate : candidates) {
      const ClusterIndex c = candidate.cluster;
      const bool used = std::any_of(scratch.parts.begin(), scratch.parts.end(),
                                    [c](const PartPlacement& part) { return part.cluster == c; });
      if (used) continue;
      const FitResult fit = placer.check(clusters[c], scratch.rest, requester, &policy);
      if (fit.fits && fit.placed > best_count) {
        best = c;
        best_count = fit.placed;
      }
    }
    if (best == kNoCluster) break;
    const std::size_t slot = scratch.parts.size();
    if (scratch.assignments.size() <= slot) scratch.assignments.resize(slot + 1);
    std::vector<NodeAssignment>& assignment = scratch.assignments[slot];
    const FitResult fit =
        placer.place(clusters[best], scratch.rest, assignment, requester, &policy);
    for (const NodeAssignment& entry : assignment) --scratch.rest.tasks[entry.task].replicas;
    placed += fit.placed;
    scratch.parts.push_back(PartPlacement{best, assignment});
  }
  return placed;
}

void release_split(std::vector<ClusterState>& clusters, SplitScratch& scratch) {
  for (std::size_t i = 0; i < scratch.parts.size(); ++i)
    release(clusters[scratch.parts[i].cluster], scratch.assignments[i]);
  scratch.parts.clear();
}

}  // namespace gantry::hub
