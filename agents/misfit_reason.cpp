#include "agents/misfit_reason.hpp"

#include <optional>

#include "hub/placement_policy.hpp"
#include "hub/quantity.hpp"

namespace gantry::agents {

namespace {

std::string selector_text(const hub::Labels& selector) {
  std::string text;
  for (const auto& [key, value] : selector) {
    if (!text.empty()) text += ", ";
    text += key + "=" + value;
  }
  return text;
}

std::string amount(hub::ResourceId id, std::int64_t milli) {
  const std::string name = hub::ResourceNames::name(id);
  return name + "=" + hub::format_quantity(name, milli);
}

// "; nodes with room have untolerated taints (...)" or "".
std::string taints_note(const hub::ClusterState& cluster, const hub::TaskShape& task,
                        hub::NodeRoom room) {
  const std::string taints = hub::untolerated_taints(cluster, task, room);
  return taints.empty() ? "" : "; nodes with room have untolerated taints (" + taints + ")";
}

// Why no node could ever hold one replica of `task`, if that is the case.
std::optional<std::string> task_cannot_fit(const hub::ClusterState& cluster,
                                           const hub::TaskShape& task) {
  std::size_t matching = 0;
  std::size_t tolerated = 0;  // matching nodes whose taints the task tolerates
  hub::ResourceVector largest;
  for (hub::NodeIndex i = 0; i < cluster.node_count(); ++i) {
    const hub::Node& node = cluster.node(i);
    if (!hub::PlacementPolicy::matches_selector(node.labels, task.node_selector)) continue;
    ++matching;
    if (!hub::PlacementPolicy::may_run_on(node, task)) continue;
    ++tolerated;
    if (task.per_replica.fits_in(node.allocatable)) return std::nullopt;
    largest = largest.max_with(node.allocatable);
  }
  if (matching == 0) {
    return "task " + task.name + ": no node matches nodeSelector " +
           selector_text(task.node_selector);
  }
  if (tolerated == 0) {
    return "task " + task.name + ": every " + (task.node_selector.empty() ? "" : "matching ") +
           "node has untolerated taints (" +
           hub::untolerated_taints(cluster, task, hub::NodeRoom::kAny) + ")";
  }
  hub::ResourceId short_of = 0;
  if (task.per_replica.first_excess(largest, short_of)) {
    return "task " + task.name + ": one replica needs " +
           amount(short_of, task.per_replica.get(short_of)) + " but the largest " +
           (task.node_selector.empty() ? "" : "matching ") + "node has " +
           amount(short_of, largest.get(short_of)) +
           taints_note(cluster, task, hub::NodeRoom::kAllocatable);
  }
  return "task " + task.name + ": no single node has room for one replica (" +
         task.per_replica.to_string() + ")";
}

}  // namespace

std::string explain_misfit(const hub::ClusterState& cluster, const hub::GangShape& gang,
                           const hub::FitResult& fit, const hub::TopologyTiers& tiers) {
  for (const hub::TaskShape& task : gang.tasks) {
    if (auto why = task_cannot_fit(cluster, task)) return *why;
  }
  const hub::ResourceVector needed = gang.minimum();
  hub::ResourceId short_of = 0;
  if (needed.first_excess(cluster.total_free(), short_of)) {
    return "insufficient " + hub::ResourceNames::name(short_of) + ": the gang's " +
           std::to_string(gang.min_available) + " replicas need " +
           amount(short_of, needed.get(short_of)) + ", " +
           amount(short_of, cluster.total_free().get(short_of)) + " free of " +
           amount(short_of, cluster.total_allocatable().get(short_of));
  }
  if (gang.topology_hard())
    return hub::topology_misfit_text(gang, tiers, cluster.name(), gang.min_available, fit.placed);
  std::string taints;
  for (const hub::TaskShape& task : gang.tasks)
    if (taints.empty()) taints = taints_note(cluster, task, hub::NodeRoom::kFree);
  return "gang does not fit on nodes: " + std::to_string(gang.min_available) +
         " replicas must start together but only " + std::to_string(fit.placed) +
         " fit on the free space of single nodes (free in total: " +
         cluster.total_free().to_string() + ")" + taints;
}

}  // namespace gantry::agents
