// Where a gang may go and which place is preferred: the one home of cluster
// eligibility (by the checks of hub/cluster_filters.hpp), cluster ranking and
// node choice. The scheduling pass, split
// placement, the starvation holds, eviction plans, pending reasons and the
// agent's own admission all ask a policy, so they can never disagree about
// what fits.
//
// A policy is a weighted sum of cluster scores (as OCM's Placement sums its
// prioritizers), a tie-break score, and a node order. The registered policies
// are the ones a queue may name (annotation gantry.io/placement):
// - binpack (default): fewest free GPUs left on the nodes the gang would take,
//   ties to the most packed cluster; nodes by best fit. Keeps whole nodes and
//   whole clusters free for big gangs.
// - spread: the cluster with the most free GPUs; nodes by worst fit.
// - gpu-available: OCM's AddOnPlacementScore gpuNodeAvailable +
//   gpuClusterAvailable (hub/ocm_score.hpp), ties to the most free GPUs;
//   nodes by worst fit.
// - topology: binpack, but a gang with a network-topology constraint goes
//   first to the clusters where most of it fits in one domain of its tiers
//   (hub/topology_score.hpp).
// A new score is one function (seeing a ScoreInput) and one row of the score
// table in placement_policy.cpp; a new policy is one row of the policy table
// (docs/adding-a-policy.md).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hub/cluster_filters.hpp"
#include "hub/cluster_state.hpp"
#include "hub/gang.hpp"
#include "hub/job.hpp"
#include "hub/tolerations.hpp"
#include "hub/topology.hpp"

namespace gantry::hub {

// What a cluster score sees: the cluster, the job (its gang, minimum and
// selectors) and the hub's topology tiers (which node label names the
// domains of each tier).
struct ScoreInput {
  const ClusterState& cluster;
  const Job& job;
  const TopologyTiers& tiers;
};

// One cluster ranking criterion; a higher score is preferred.
struct ClusterScore {
  std::string_view name;
  std::int64_t (*score)(const ScoreInput& input) = nullptr;
  std::int64_t weight = 1;
};

// Every score a policy may be built from (the registration table).
std::span<const ClusterScore> registered_cluster_scores();
// nullptr when no score has that name.
const ClusterScore* find_cluster_score(std::string_view name);

// Which node a replica takes among those it fits on.
enum class NodeOrder : std::uint8_t {
  kBestFit,   // the fewest free GPUs that still hold it: large holes stay open
  kWorstFit,  // the most free GPUs: load spreads
};

using RankedCluster = ClusterRank;

// When the replica being placed would end, so that best fit can also fit in
// time: nodes whose runs end together free whole, which is what gangs and
// whole-node jobs wait for. The default leaves the node order alone.
struct ReplicaTiming {
  // The replica's planned end (ms); kNoPlannedEnd: unknown (no time limit).
  std::int64_t end = kNoPlannedEnd;
  // A backfill plan for a gang of several replicas: the nodes that drain
  // first (idle ones first), so that what a reservation already holds stays
  // in its plan from pass to pass.
  bool drain_first = false;

  static constexpr std::int64_t kNoPlannedEnd = INT64_MAX;
  bool any() const { return drain_first || end != kNoPlannedEnd; }
};

class PlacementPolicy {
 public:
  // binpack.
  PlacementPolicy();
  PlacementPolicy(std::string name, std::vector<ClusterScore> scores,
                  NodeOrder order = NodeOrder::kBestFit, const ClusterScore* tie_break = nullptr);
  // A policy of these scores, best fit, no tie-break (tests and experiments).
  explicit PlacementPolicy(std::vector<ClusterScore> scores);
  // The default policy (binpack), for placers built without one.
  static const PlacementPolicy& standard();

  const std::string& name() const { return name_; }
  NodeOrder node_order() const { return order_; }

  // ---- cluster eligibility: the checks registered in hub/cluster_filters.hpp
  // Passes every kEligible check (ready, uncordoned, pinned clusters, cluster
  // selector): the job may be placed there.
  static bool eligible(const ClusterState& cluster, ClusterIndex index, const Job& job);
  // Passes every check, kWorthTrying ones too (not backed off, enough free in
  // total for the job's minimum): worth a node-level try.
  static bool worth_trying(const ClusterState& cluster, ClusterIndex index, const Job& job,
                           TimeMs now);

  // ---- cluster ranking
  // The clusters worth trying for the job, best first (ties: the tie-break
  // score, then lower index), into `out`, which is cleared first and reused
  // (no allocation once warm).
  void rank_clusters(const std::vector<ClusterState>& clusters, const Job& job,
                     const TopologyTiers& tiers, TimeMs now, std::vector<RankedCluster>& out) const;
  // The policy's score of one cluster for the job (what describe shows).
  std::int64_t score(const ScoreInput& input) const;
  // Where a starving job holds nodes: the eligible cluster with the most free
  // GPUs that could ever hold its minimum and still has nodes nobody holds.
  ClusterIndex choose_hold_cluster(std::span<const ClusterState> clusters, const Job& job) const;

  // ---- node choice
  static bool matches_selector(const Labels& labels, const Labels& selector);
  // Whether a replica of `task` may run on the node at all, room aside: the
  // node's labels match the task's nodeSelector and the task tolerates every
  // NoSchedule / NoExecute taint of the node. The one node filter of every
  // placement (the hub's and the agent's admission); untainted nodes skip the
  // toleration check.
  static bool may_run_on(const Node& node, const TaskShape& task) {
    return matches_selector(node.labels, task.node_selector) &&
           (node.taints.empty() || first_untolerated(node.taints, task.tolerations) == nullptr);
  }
  // A node with room for one replica of `task` that may run it and
  // is not held for someone other than `requester`, in the policy's node order;
  // with a timing and best fit, in time too (timed_fit in placement_policy.cpp).
  std::optional<NodeIndex> choose_node(const ClusterState& cluster, const TaskShape& task,
                                       std::uint32_t requester,
                                       const ReplicaTiming& timing = {}) const;
  // A node to hold for one replica of a starving job `owner`, on top of what
  // is already `promised` on each node: the most free GPUs left (ties: lower
  // index), so the held room is the most likely to fit it soon.
  std::optional<NodeIndex> choose_hold_node(const ClusterState& cluster, const TaskShape& task,
                                            std::span<const ResourceVector> promised,
                                            std::uint32_t owner) const;

 private:
  std::string name_;
  std::vector<ClusterScore> scores_;
  NodeOrder order_ = NodeOrder::kBestFit;
  const ClusterScore* tie_break_ = nullptr;
};

// Which room untolerated_taints() looks for on a node.
enum class NodeRoom : std::uint8_t {
  kAny,          // none: the node matches the task's nodeSelector
  kAllocatable,  // the node could ever hold one replica
  kFree,         // the node has room for one replica now
};

// Why nodes turn a task away, for pending reasons and Rejects: the distinct
// untolerated taints ("key=value:Effect", comma-separated, the first three
// named) of the nodes that match the task's nodeSelector and have `room` for
// one replica. "" when there are none; O(1) in a cluster without taints.
std::string untolerated_taints(const ClusterState& cluster, const TaskShape& task, NodeRoom room);

// The registered policies, by the name a queue or the hub's --placement uses.
// nullptr when no policy has that name.
const PlacementPolicy* find_placement_policy(std::string_view name);
// "binpack, spread, gpu-available, topology": for error messages and help.
std::string placement_policy_names();

}  // namespace gantry::hub
