// Node-level gang fit inside one cluster. A gang fits when at least
// min_available replicas can each be put on a node that has room for the whole
// replica (and matches its node selector). Placement is greedy, largest
// replicas first, each on the node the placement policy chooses.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "hub/cluster_state.hpp"
#include "hub/gang.hpp"
#include "hub/placement_policy.hpp"

namespace gantry::hub {

struct NodeAssignment {
  std::uint32_t task = 0;  // index into GangShape::tasks
  NodeIndex node = 0;
  ResourceVector amount;  // what this replica takes on the node
};

// The replicas of one part of a placement on one cluster.
struct PartPlacement {
  ClusterIndex cluster = kNoCluster;
  std::span<const NodeAssignment> assignment;
};

struct FitResult {
  bool fits = false;
  std::int32_t placed = 0;  // replicas that found a node (best effort)
};

// Reusable scratch so a decision does not allocate once warmed up.
class GangPlacer {
 public:
  // `policy` chooses each replica's node.
  explicit GangPlacer(PlacementPolicy policy = PlacementPolicy::standard())
      : policy_(std::move(policy)) {}
  const PlacementPolicy& policy() const { return policy_; }

  // On success takes the resources from `cluster` and appends one entry per
  // placed replica to `out` (cleared first). On failure `cluster` is unchanged.
  // Nodes held for someone other than `requester` are skipped. Nodes are
  // chosen by `policy` (by this placer's own when none is given).
  FitResult place(ClusterState& cluster, const GangShape& gang, std::vector<NodeAssignment>& out,
                  std::uint32_t requester = kNoOwner, const PlacementPolicy* policy = nullptr);
  // Like place(), but always leaves `cluster` unchanged.
  FitResult check(ClusterState& cluster, const GangShape& gang, std::uint32_t requester = kNoOwner,
                  const PlacementPolicy* policy = nullptr);

 private:
  PlacementPolicy policy_;
  std::vector<NodeAssignment> scratch_;
  std::vector<std::uint32_t> task_order_;
};

// Gives back what place() took.
void release(ClusterState& cluster, const std::vector<NodeAssignment>& assignment);

}  // namespace gantry::hub
