// The agent's own nodes and what its running replicas hold on them. Admission
// is the hub's placement code, choosing nodes by the same PlacementPolicy,
// run against this local, authoritative state, so a gang admitted here really
// has a node for every replica.
#pragma once

#include <string>
#include <vector>

#include "config/inventory.hpp"
#include "hub/cluster_state.hpp"
#include "hub/gang.hpp"
#include "hub/placement.hpp"
#include "hub/placement_policy.hpp"

namespace gantry::agents {

struct Admission {
  bool admitted = false;
  std::string reason;  // why not, naming what was short
};

class NodePool {
 public:
  NodePool(const std::string& cluster, const config::Inventory& inventory);

  // Places every replica it can (at least gang.min_available) and takes their
  // resources; `assignment` gets one entry per placed replica. On refusal
  // nothing is taken.
  Admission admit(const hub::GangShape& gang, std::vector<hub::NodeAssignment>& assignment);
  void release(const std::vector<hub::NodeAssignment>& assignment);

  const hub::ClusterState& state() const { return cluster_; }
  const std::string& node_name(hub::NodeIndex node) const { return cluster_.node(node).name; }
  // Every node with its allocatable and what is allocated now.
  void fill_usage(protocol::UsageReport& report) const;

 private:
  hub::ClusterState cluster_;
  hub::GangPlacer placer_;  // chooses nodes by the hub's default PlacementPolicy
  std::vector<protocol::NodeUsage> inventory_nodes_;  // in ClusterState node order
};

}  // namespace gantry::agents
