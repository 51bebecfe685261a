#include "agents/node_pool.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "agents/misfit_reason.hpp"

namespace gantry::agents {

std::string NodePool::node_label(const std::string& name, const std::string& key) const {
  const auto index = index_by_name_.find(name);
  if (index == index_by_name_.end()) return "";
  const protocol::Labels& labels = inventory_nodes_[index->second].labels;
  const auto found = labels.find(key);
  return found == labels.end() ? "" : found->second;
}

namespace {

std::vector<hub::NodeSpec> node_specs(const config::Inventory& inventory) {
  std::vector<hub::NodeSpec> specs;
  specs.reserve(inventory.nodes.size());
  for (const protocol::NodeUsage& node : inventory.nodes) {
    specs.push_back(hub::NodeSpec{node.name, node.labels,
                                  hub::ResourceVector::from_list(node.allocatable),
                                  hub::ResourceVector(), node.taints});
  }
  return specs;
}

}  // namespace

NodePool::NodePool(const std::string& cluster, const config::Inventory& inventory)
    : cluster_(cluster) {
  if (inventory.nodes.empty()) throw std::invalid_argument("the inventory has no nodes");
  cluster_.set_labels(inventory.cluster_labels);
  cluster_.set_nodes(node_specs(inventory));
  cluster_.set_ready(true);

  std::unordered_map<std::string, const protocol::NodeUsage*> by_name;
  for (const protocol::NodeUsage& node : inventory.nodes) by_name[node.name] = &node;
  inventory_nodes_.reserve(cluster_.node_count());
  for (hub::NodeIndex i = 0; i < cluster_.node_count(); ++i) {
    inventory_nodes_.push_back(*by_name.at(cluster_.node(i).name));
  }
  held_.assign(cluster_.node_count(), hub::ResourceVector());
  for (std::size_t i = 0; i < inventory_nodes_.size(); ++i)
    index_by_name_.emplace(inventory_nodes_[i].name, i);
}

NodePool::NodePool(const std::string& cluster, protocol::Labels labels) : cluster_(cluster) {
  cluster_.set_labels(std::move(labels));
  cluster_.set_ready(true);
}

void NodePool::update_nodes(const std::vector<protocol::NodeUsage>& nodes) {
  std::vector<bool> listed(inventory_nodes_.size(), false);
  for (const protocol::NodeUsage& node : nodes) {
    const auto [known, added] = index_by_name_.try_emplace(node.name, inventory_nodes_.size());
    if (added) {
      inventory_nodes_.push_back(node);
      held_.emplace_back();
      listed.push_back(true);
    } else {
      inventory_nodes_[known->second] = node;
      listed[known->second] = true;
    }
  }
  std::vector<hub::NodeSpec> specs;
  specs.reserve(inventory_nodes_.size());
  for (std::size_t i = 0; i < inventory_nodes_.size(); ++i) {
    const protocol::NodeUsage& node = inventory_nodes_[i];
    hub::ResourceVector allocatable;
    hub::ResourceVector others;
    if (listed[i]) {
      allocatable = hub::ResourceVector::from_list(node.allocatable);
      others = hub::ResourceVector::from_list(node.allocated);
    } else {
      inventory_nodes_[i].allocatable.clear();
      inventory_nodes_[i].gpus.clear();
    }
    specs.push_back(
        hub::NodeSpec{node.name, node.labels, allocatable, others + held_[i], node.taints});
  }
  cluster_.set_nodes(specs);
}

Admission NodePool::admit(const hub::GangShape& gang, std::vector<hub::NodeAssignment>& assignment,
                          std::span<const protocol::PlacedReplica> hints,
                          const hub::TopologyTiers& tiers) {
  if (!hints.empty() && take_hinted(gang, hints, assignment)) {
    for (const hub::NodeAssignment& taken : assignment) held_[taken.node] += taken.amount;
    return Admission{true, "", true};
  }
  // The hub's tiers are the same for every gang it sends: the placer (and
  // its domain index) is rebuilt only when they first differ.
  if (gang.topology_aware() && !(placer_.topology_tiers() == tiers))
    placer_ = hub::GangPlacer(placer_.policy(), tiers);
  const hub::FitResult fit = placer_.place(cluster_, gang, assignment);
  if (fit.fits) {
    for (const hub::NodeAssignment& taken : assignment) held_[taken.node] += taken.amount;
    return Admission{true, "", false};
  }
  return Admission{false, explain_misfit(cluster_, gang, fit, placer_.topology_tiers()), false};
}

// The hub chose these nodes on its view of this cluster, which may be stale:
// each is checked against the live state, and the hints must name every
// replica of the gang, no more.
bool NodePool::take_hinted(const hub::GangShape& gang,
                           std::span<const protocol::PlacedReplica> hints,
                           std::vector<hub::NodeAssignment>& assignment) {
  assignment.clear();
  if (hints.size() != static_cast<std::size_t>(gang.total_replicas())) return false;
  hinted_per_task_.assign(gang.tasks.size(), 0);
  for (const protocol::PlacedReplica& hint : hints) {
    if (!take_hint(gang, hint, assignment)) {
      hub::release(cluster_, assignment);
      assignment.clear();
      return false;
    }
  }
  return true;
}

// One hinted replica onto its node: a known node that may run the task
// (selector, taints) and has room for the replica now.
bool NodePool::take_hint(const hub::GangShape& gang, const protocol::PlacedReplica& hint,
                         std::vector<hub::NodeAssignment>& assignment) {
  const auto task = std::find_if(gang.tasks.begin(), gang.tasks.end(),
                                 [&](const hub::TaskShape& t) { return t.name == hint.task; });
  const std::optional<hub::NodeIndex> node = cluster_.find_node(hint.node);
  if (task == gang.tasks.end() || !node) return false;
  const auto t = static_cast<std::uint32_t>(task - gang.tasks.begin());
  const hub::Node& target = cluster_.node(*node);
  if (++hinted_per_task_[t] > task->replicas || !task->per_replica.fits_in(target.free) ||
      !hub::PlacementPolicy::may_run_on(target, *task)) {
    return false;
  }
  const hub::ResourceVector held = cluster_.held_on(*node, task->per_replica);
  cluster_.take(*node, held);
  assignment.push_back(hub::NodeAssignment{t, *node, held});
  return true;
}

void NodePool::release(const std::vector<hub::NodeAssignment>& assignment) {
  hub::release(cluster_, assignment);
  for (const hub::NodeAssignment& given : assignment) held_[given.node] -= given.amount;
}

void NodePool::fill_usage(protocol::UsageReport& report) const {
  report.cluster = cluster_.name();
  report.nodes.clear();
  for (hub::NodeIndex i = 0; i < cluster_.node_count(); ++i) {
    const hub::Node& node = cluster_.node(i);
    if (node.allocatable.is_zero() && held_[i].is_zero()) continue;  // gone, nothing held there
    report.nodes.push_back(inventory_nodes_[i]);
    report.nodes.back().allocated = (node.allocatable - node.free).to_list();
  }
}

}  // namespace gantry::agents
