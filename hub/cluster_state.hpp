// One member cluster as the scheduler sees it: its nodes, what is free on each
// (allocatable minus what the agent reported allocated minus what the hub
// holds for dispatches the agent has not yet reported), and an index of nodes by free
// GPUs so that a gang fit looks at few nodes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "hub/resources.hpp"

namespace gantry::hub {

using Labels = protocol::Labels;
using NodeIndex = std::uint32_t;
// Who a node is held for (a JobId in the scheduler); kNoOwner when free to all.
inline constexpr std::uint32_t kNoOwner = ~std::uint32_t{0};
// ClusterState::drain_time() of a node where nothing planned runs.
inline constexpr std::int64_t kIdleNode = -1;

struct NodeSpec {
  std::string name;
  Labels labels;
  ResourceVector allocatable;
  ResourceVector allocated;
  std::vector<protocol::Taint> taints{};  // NoSchedule / NoExecute (protocol::NodeUsage)
};

// What the agent last observed beyond what placement counts: its OCM scores
// and NVML's usage of each GPU of its nodes. Kept for operators (gantryctl get
// clusters -o wide, describe cluster); no scheduling pass reads it.
struct ObservedUsage {
  protocol::PlacementScores scores;      // valid_until_ms 0: the agent sent none
  std::vector<protocol::GpuUsage> gpus;  // every reporting GPU, node after node
  // How its nodes' fit is known ("" = per node); shown, never used to place.
  std::string fit_note{};
};

// Every key=value of `selector` is among `labels`, as a Kubernetes
// matchLabels selector matches (an empty selector matches everything).
bool labels_match(const Labels& labels, const Labels& selector);

struct Node {
  std::string name;
  Labels labels;
  ResourceVector allocatable;  // with its GPUs also counted under their product
  ResourceVector free;
  ResourceId gpu_product = kNoResource;  // "nvidia.com/gpu/<product>", if labelled
  // Tasks that do not tolerate these are not placed here (hub/tolerations.hpp).
  // Empty on most nodes, where the check costs one comparison.
  std::vector<protocol::Taint> taints{};
};

class ClusterState {
 public:
  explicit ClusterState(std::string name);

  const std::string& name() const { return name_; }
  bool ready() const { return ready_; }
  // Ready clears the agent's not-ready reason; not ready keeps it.
  void set_ready(bool ready) {
    ready_ = ready;
    if (ready) agent_not_ready_reason_.clear();
  }
  // Why its agent says the cluster takes no work yet ("syncing": its
  // Kubernetes view has not listed every Node and Pod); "" when it did not say.
  const std::string& agent_not_ready_reason() const { return agent_not_ready_reason_; }
  void set_agent_not_ready(std::string reason) {
    ready_ = false;
    agent_not_ready_reason_ = std::move(reason);
  }
  // Cordoned (gantryctl cordon / drain): no new placements; what runs stays.
  bool cordoned() const { return cordoned_; }
  void set_cordoned(bool cordoned) { cordoned_ = cordoned; }
  // Whether it has sent a usage report since it was added (its nodes are known).
  bool reported() const { return report_generation_ > 0; }
  const Labels& labels() const { return labels_; }
  void set_labels(Labels labels) { labels_ = std::move(labels); }

  // Replaces every node from a usage report: free = allocatable - allocated,
  // the GPUs of a node labelled nvidia.com/gpu.product counted under that
  // product too. Bumps report_generation().
  void set_nodes(const std::vector<NodeSpec>& nodes);
  std::uint64_t report_generation() const { return report_generation_; }

  // Replaced by each usage report, apart from set_nodes so that placement
  // (set_nodes, take, give) never copies GPU details it does not use.
  const ObservedUsage& observed_usage() const { return observed_usage_; }
  void set_observed_usage(ObservedUsage usage) { observed_usage_ = std::move(usage); }

  std::size_t node_count() const { return nodes_.size(); }
  // Whether any node has a taint: what lets pending reasons skip looking.
  bool has_tainted_nodes() const { return tainted_nodes_ > 0; }
  const Node& node(NodeIndex index) const { return nodes_[index]; }
  std::optional<NodeIndex> find_node(const std::string& name) const;

  // What a replica asking `request` holds on the node: the request, its GPUs
  // also counted under the node's product.
  ResourceVector held_on(NodeIndex index, const ResourceVector& request) const;

  // Moves resources out of / back into a node's free pool, keeping totals and
  // the free-GPU index current. O(1).
  void take(NodeIndex index, const ResourceVector& amount);
  void give(NodeIndex index, const ResourceVector& amount);

  const ResourceVector& total_allocatable() const { return total_allocatable_; }
  const ResourceVector& total_free() const { return total_free_; }
  // Largest per-node allocatable, per resource (a replica larger than this can
  // never fit in this cluster).
  const ResourceVector& largest_node() const { return largest_node_; }
  std::int64_t max_node_gpus() const { return largest_node_.gpus(); }

  // Nodes whose free whole GPUs equal `gpus` (0 .. max_node_gpus()).
  const std::vector<NodeIndex>& nodes_with_free_gpus(std::int64_t gpus) const {
    return free_gpu_buckets_[static_cast<std::size_t>(gpus)];
  }
  // Count of nodes with at least `gpus` free whole GPUs; O(max_node_gpus).
  std::size_t count_nodes_with_at_least(std::int64_t gpus) const;

  // Starvation holds: nodes held for one waiting job, which placement of any
  // other job skips. Cleared by set_nodes() and clear_holds().
  void hold_node(NodeIndex index, std::uint32_t owner);
  void clear_holds();
  bool has_holds() const { return held_nodes_ > 0; }
  bool fully_held() const { return !nodes_.empty() && held_nodes_ == nodes_.size(); }
  std::uint32_t held_for(NodeIndex index) const { return held_for_[index]; }

  // When the runs on each node are planned to end, one entry per replica
  // (milliseconds; INT64_MAX for a run without a time limit): what lets
  // placement keep nodes that drain together together. The core adds and
  // removes them as runs start and end; they survive usage reports (nodes
  // keep their indices, as dispatch assignments assume).
  void add_planned_end(NodeIndex index, std::int64_t end);
  void remove_planned_end(NodeIndex index, std::int64_t end);
  // The latest planned end of a run on the node; kIdleNode when none.
  // O(replicas on the node).
  std::int64_t drain_time(NodeIndex index) const;

 private:
  void bucket_insert(NodeIndex index);
  void bucket_erase(NodeIndex index);
  std::size_t bucket_of(const Node& node) const;

  std::string name_;
  bool ready_ = false;
  bool cordoned_ = false;
  std::string agent_not_ready_reason_;
  Labels labels_;
  std::vector<Node> nodes_;
  std::unordered_map<std::string, NodeIndex> node_by_name_;
  ResourceVector total_allocatable_;
  ResourceVector total_free_;
  ResourceVector largest_node_;
  std::uint64_t report_generation_ = 0;
  std::vector<std::vector<NodeIndex>> free_gpu_buckets_;
  std::vector<std::uint32_t> position_in_bucket_;
  std::vector<std::uint32_t> held_for_;
  std::size_t held_nodes_ = 0;
  std::size_t tainted_nodes_ = 0;
  std::vector<std::vector<std::int64_t>> planned_ends_;  // by node
  ObservedUsage observed_usage_;                         // last: the pass's fields stay together
};

}  // namespace gantry::hub
