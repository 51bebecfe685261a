#include "agents/node_pool.hpp"

#include <stdexcept>
#include <unordered_map>

#include "agents/misfit_reason.hpp"

namespace gantry::agents {

namespace {

std::vector<hub::NodeSpec> node_specs(const config::Inventory& inventory) {
  std::vector<hub::NodeSpec> specs;
  specs.reserve(inventory.nodes.size());
  for (const protocol::NodeUsage& node : inventory.nodes) {
    specs.push_back(hub::NodeSpec{node.name, node.labels,
                                  hub::ResourceVector::from_list(node.allocatable),
                                  hub::ResourceVector()});
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
}

Admission NodePool::admit(const hub::GangShape& gang,
                          std::vector<hub::NodeAssignment>& assignment) {
  const hub::FitResult fit = placer_.place(cluster_, gang, assignment);
  if (fit.fits) return Admission{true, ""};
  return Admission{false, explain_misfit(cluster_, gang, fit)};
}

void NodePool::release(const std::vector<hub::NodeAssignment>& assignment) {
  hub::release(cluster_, assignment);
}

void NodePool::fill_usage(protocol::UsageReport& report) const {
  report.cluster = cluster_.name();
  report.nodes = inventory_nodes_;
  for (hub::NodeIndex i = 0; i < cluster_.node_count(); ++i) {
    const hub::Node& node = cluster_.node(i);
    report.nodes[i].allocated = (node.allocatable - node.free).to_list();
  }
}

}  // namespace gantry::agents
