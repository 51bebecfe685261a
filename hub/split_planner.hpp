// The greedy choice of an atomic split's parts, apart from the scheduler so
// that whatever needs to know how the core splits a gang (the scheduling
// pass, the simulator's check of what an empty pool could ever run) asks this
// one function: each step takes the candidate cluster that holds the most of
// the replicas still to place (candidates in preference order: ties keep the
// earlier), until minAvailable replicas are placed, no candidate takes one,
// or `max_parts` parts are placed.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "hub/cluster_state.hpp"
#include "hub/gang.hpp"
#include "hub/job.hpp"
#include "hub/placement.hpp"

namespace gantry::hub {

// Reusable buffers of one split plan: the parts (spans into `assignments`,
// one buffer per part) and the replicas of each task still to place.
struct SplitScratch {
  std::vector<PartPlacement> parts;
  std::vector<std::vector<NodeAssignment>> assignments;
  GangShape rest;
};

// Places the parts on `clusters`, taking their resources (give them back
// with release_split() when the plan is not used). Returns the replicas placed.
std::int32_t plan_split(std::vector<ClusterState>& clusters,
                        std::span<const ClusterRank> candidates, const GangShape& gang,
                        GangPlacer& placer, const PlacementPolicy& policy, std::uint32_t requester,
                        std::uint32_t max_parts, SplitScratch& scratch);
void release_split(std::vector<ClusterState>& clusters, SplitScratch& scratch);

// Whether one replica of some task still to place fits the cluster's free total.
bool room_for_a_replica(const ClusterState& cluster, const GangShape& rest);

}  // namespace gantry::hub
