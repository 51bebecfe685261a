// Node-level gang fit inside one cluster. A gang fits when at least
// min_available replicas can each be put on a node that has room for the whole
// replica (and matches its node selector). Placement is greedy, largest
// replicas first, each on the node the placement policy chooses.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "hub/cluster_state.hpp"
#include "hub/gang.hpp"
#include "hub/placement_policy.hpp"
#include "hub/topology.hpp"

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

// The nodes a replica may take: every node of the cluster, or the listed
// ones (a topology domain), of those only the ones marked in `within` when
// given (a partition's domain inside the job's domain).
struct NodeScope {
  bool every = true;
  std::span<const NodeIndex> nodes;
  const std::vector<std::uint8_t>* within = nullptr;
};

// A node of `scope` with room for one replica of `task` that matches its
// selector and is not held for someone other than `requester`, in `order`
// (ties: the first listed). O(nodes in scope).
std::optional<NodeIndex> choose_node_in(const ClusterState& cluster, const NodeScope& scope,
                                        const TaskShape& task, std::uint32_t requester,
                                        NodeOrder order);

// Reusable scratch so a decision does not allocate once warmed up.
class GangPlacer {
 public:
  // `policy` chooses each replica's node; `tiers` name the node labels of the
  // network-topology tiers (hub/topology.hpp).
  explicit GangPlacer(PlacementPolicy policy = PlacementPolicy::standard(),
                      TopologyTiers tiers = {})
      : policy_(std::move(policy)), tiers_(std::move(tiers)) {}
  const PlacementPolicy& policy() const { return policy_; }
  const TopologyTiers& topology_tiers() const { return tiers_; }

  // On success takes the resources from `cluster` and appends one entry per
  // placed replica to `out` (cleared first). On failure `cluster` is unchanged.
  // Nodes held for someone other than `requester` are skipped. Nodes are
  // chosen by `policy` (by this placer's own when none is given), in time as
  // well when `timing` says when the gang would end.
  FitResult place(ClusterState& cluster, const GangShape& gang, std::vector<NodeAssignment>& out,
                  std::uint32_t requester = kNoOwner, const PlacementPolicy* policy = nullptr,
                  const ReplicaTiming& timing = {});
  // Like place(), but always leaves `cluster` unchanged.
  FitResult check(ClusterState& cluster, const GangShape& gang, std::uint32_t requester = kNoOwner,
                  const PlacementPolicy* policy = nullptr);

 private:
  // Greedy, largest replicas first, on nodes of `scope`; on failure `out` and
  // `cluster` are as they were.
  FitResult place_greedy(ClusterState& cluster, const GangShape& gang,
                         std::vector<NodeAssignment>& out, std::uint32_t requester,
                         const PlacementPolicy& chooser, const NodeScope& scope,
                         const ReplicaTiming& timing = {});
  // Up to `count` replicas of one task, appended to `out`; returns how many.
  std::int32_t place_replicas(ClusterState& cluster, std::uint32_t task_index, std::int32_t count,
                              const TaskShape& task, std::vector<NodeAssignment>& out,
                              std::uint32_t requester, const PlacementPolicy& chooser,
                              const NodeScope& scope, const ReplicaTiming& timing = {});
  // ---- topology.cpp
  // The whole gang within one domain (spec.networkTopology).
  FitResult place_in_topology(ClusterState& cluster, const GangShape& gang,
                              std::vector<NodeAssignment>& out, std::uint32_t requester,
                              const PlacementPolicy& chooser);
  // A partitioned task, partition by partition; returns the replicas placed.
  std::int32_t place_partitions(ClusterState& cluster, std::uint32_t task_index,
                                const TaskShape& task, std::vector<NodeAssignment>& out,
                                std::uint32_t requester, const PlacementPolicy& chooser,
                                const NodeScope& scope);
  bool place_partition(ClusterState& cluster, std::uint32_t task_index, std::int32_t count,
                       const TaskShape& task, std::vector<NodeAssignment>& out,
                       std::uint32_t requester, const PlacementPolicy& chooser,
                       const NodeScope& scope);

  PlacementPolicy policy_;
  std::vector<NodeAssignment> scratch_;
  std::vector<std::uint32_t> task_order_;
  TopologyTiers tiers_;
  TopologyIndex domains_;
  std::vector<std::uint8_t> in_job_domain_;  // by node: the domain the gang is tried in
  // Domains worth a try, in the order tried: (free GPUs, domain index).
  std::vector<std::pair<std::int64_t, std::uint32_t>> job_domain_order_, partition_domain_order_;
};

// Gives back what place() took after `from` in `assignment`, and drops it.
void release_from(ClusterState& cluster, std::vector<NodeAssignment>& assignment, std::size_t from);

// Gives back what place() took.
void release(ClusterState& cluster, const std::vector<NodeAssignment>& assignment);

}  // namespace gantry::hub
