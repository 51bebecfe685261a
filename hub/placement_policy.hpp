// Where a gang may go and which place is preferred: the one home of cluster
// eligibility, cluster ranking and node choice. The scheduling pass, the
// starvation holds, eviction plans, pending reasons and the agent's own
// admission all ask this policy, so they can never disagree about what fits.
//
// Cluster ranking is a weighted sum of scores (as Mesos plugs sorters into its
// allocator): a new score is one function and one row in the table in
// placement_policy.cpp; the pass does not change.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "hub/cluster_state.hpp"
#include "hub/gang.hpp"
#include "hub/job.hpp"

namespace gantry::hub {

// One cluster ranking criterion; a higher score is preferred.
struct ClusterScore {
  std::string_view name;
  std::int64_t (*score)(const ClusterState& cluster, const Job& job) = nullptr;
  std::int64_t weight = 1;
};

// Every score a policy may be built from (the registration table).
std::span<const ClusterScore> registered_cluster_scores();
// nullptr when no score has that name.
const ClusterScore* find_cluster_score(std::string_view name);

struct RankedCluster {
  std::int64_t score = 0;
  ClusterIndex cluster = kNoCluster;
};

class PlacementPolicy {
 public:
  // Today's policy: the most packed cluster first ("most-packed"), so whole
  // empty clusters stay open for the largest gangs.
  PlacementPolicy();
  explicit PlacementPolicy(std::vector<ClusterScore> scores);
  // The default policy, for placers built without one.
  static const PlacementPolicy& standard();

  // ---- cluster eligibility
  // The job is not pinned to other clusters (gantry.io/clusters).
  static bool allowed(const Job& job, ClusterIndex index);
  // The cluster is ready and allowed for the job.
  static bool eligible(const ClusterState& cluster, ClusterIndex index, const Job& job);
  // Eligible, has not refused the job since its last usage report, and has
  // enough free in total for the job's minimum (a GPU product the job selects
  // included): worth a node-level try.
  static bool worth_trying(const ClusterState& cluster, ClusterIndex index, const Job& job);

  // ---- cluster ranking
  // The clusters worth trying for the job, best first (ties: lower index),
  // into `out`, which is cleared first and reused (no allocation once warm).
  void rank_clusters(const std::vector<ClusterState>& clusters, const Job& job,
                     std::vector<RankedCluster>& out) const;
  // Where a starving job holds nodes: the eligible cluster with the most free
  // GPUs that could ever hold its minimum and still has nodes nobody holds.
  ClusterIndex choose_hold_cluster(const std::vector<ClusterState>& clusters, const Job& job) const;

  // ---- node choice
  static bool matches_selector(const Labels& labels, const Labels& selector);
  // A node with room for one replica of `task` that matches its selector and
  // is not held for someone other than `requester`: best fit by GPUs (the
  // fewest free GPUs that still hold it), so large holes stay open for large
  // replicas.
  std::optional<NodeIndex> choose_node(const ClusterState& cluster, const TaskShape& task,
                                       std::uint32_t requester) const;
  // A node to hold for one replica of a starving job `owner`, on top of what
  // is already `promised` on each node: the most free GPUs left (ties: lower
  // index), so the held room is the most likely to fit it soon.
  std::optional<NodeIndex> choose_hold_node(const ClusterState& cluster, const TaskShape& task,
                                            std::span<const ResourceVector> promised,
                                            std::uint32_t owner) const;

 private:
  std::int64_t score(const ClusterState& cluster, const Job& job) const;

  std::vector<ClusterScore> scores_;
};

}  // namespace gantry::hub
