// The agent's own nodes and what its prepared and running parts hold on them.
// Admission first tries the nodes the hub suggested, then the hub's placement
// code, choosing nodes by the same PlacementPolicy, run against this local,
// authoritative state, so a gang admitted here really has a node for every
// replica.
#pragma once

#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "config/inventory.hpp"
#include "hub/cluster_state.hpp"
#include "hub/gang.hpp"
#include "hub/placement.hpp"
#include "hub/placement_policy.hpp"

namespace gantry::agents {

struct Admission {
  bool admitted = false;
  std::string reason;   // why not, naming what was short
  bool hinted = false;  // admitted on exactly the nodes the hub suggested
};

class NodePool {
 public:
  // A fixed inventory (bare machines, laptops). Throws when it has no nodes.
  NodePool(const std::string& cluster, const config::Inventory& inventory);
  // No nodes yet: a cluster-role agent learns them from Kubernetes or from its
  // node-role agents (update_nodes).
  NodePool(const std::string& cluster, protocol::Labels labels);

  // The nodes as they are now: each with its allocatable, what others than
  // this agent hold on it (`allocated`: pods Gantry did not start), and
  // labels, GPU model and GPU usage. What this agent holds stays held. A node
  // no longer listed keeps its place with nothing allocatable (parts still
  // hold their assignments by node index), and comes back if listed again.
  void update_nodes(const std::vector<protocol::NodeUsage>& nodes);

  // Takes the resources of the gang's replicas; `assignment` gets one entry
  // per placed replica. When `hints` (one {task, node} per replica of the
  // gang) all fit on their nodes now, takes exactly those; otherwise places
  // every replica it can (at least gang.min_available) by its own policy,
  // within the topology domains `tiers` name when the gang has a topology
  // constraint. On refusal nothing is taken.
  Admission admit(const hub::GangShape& gang, std::vector<hub::NodeAssignment>& assignment,
                  std::span<const protocol::PlacedReplica> hints = {},
                  const hub::TopologyTiers& tiers = {});
  void release(const std::vector<hub::NodeAssignment>& assignment);

  const hub::ClusterState& state() const { return cluster_; }
  const std::string& node_name(hub::NodeIndex node) const { return cluster_.node(node).name; }
  // The value of label `key` on the node named `name`; "" when either is unknown.
  std::string node_label(const std::string& name, const std::string& key) const;
  // Every node with its allocatable and what is allocated now.
  void fill_usage(protocol::UsageReport& report) const;

 private:
  // Takes the hinted nodes, or nothing when a hint does not fit.
  bool take_hinted(const hub::GangShape& gang, std::span<const protocol::PlacedReplica> hints,
                   std::vector<hub::NodeAssignment>& assignment);
  bool take_hint(const hub::GangShape& gang, const protocol::PlacedReplica& hint,
                 std::vector<hub::NodeAssignment>& assignment);

  void take(hub::NodeIndex node, const hub::ResourceVector& amount);

  hub::ClusterState cluster_;
  hub::GangPlacer placer_;  // chooses nodes by the hub's default PlacementPolicy
  std::vector<protocol::NodeUsage> inventory_nodes_;            // in ClusterState node order
  std::vector<hub::ResourceVector> held_;                       // what this agent holds, per node
  std::unordered_map<std::string, std::size_t> index_by_name_;  // into inventory_nodes_
  std::vector<std::int32_t> hinted_per_task_;                   // scratch for take_hinted
};

}  // namespace gantry::agents
