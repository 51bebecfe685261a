// Network-topology-aware placement (Volcano's networkTopology and
// partitionPolicy) on domains read from node labels; see hub/topology.hpp.
#include "hub/topology.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "hub/placement.hpp"

namespace gantry::hub {

namespace {

using Mode = TopologyConstraint::Mode;
using DomainOrder = std::vector<std::pair<std::int64_t, std::uint32_t>>;

std::vector<TopologyDomain> group_by_label(const ClusterState& cluster, const std::string& key) {
  std::map<std::string, std::vector<NodeIndex>, std::less<>> by_value;
  for (NodeIndex n = 0; n < cluster.node_count(); ++n) {
    const Labels& labels = cluster.node(n).labels;
    const auto it = labels.find(key);
    if (it != labels.end() && !it->second.empty()) by_value[it->second].push_back(n);
  }
  std::vector<TopologyDomain> domains;
  domains.reserve(by_value.size());
  for (auto& [value, nodes] : by_value) domains.push_back(TopologyDomain{value, std::move(nodes)});
  return domains;
}

bool usable(const NodeScope& scope, NodeIndex n) {
  return scope.within == nullptr || (*scope.within)[n] != 0;
}

// The domains of `domains` whose free room (inside `within` when given) holds
// `need`, into `order`: the fullest first for best fit (a domain left empty
// stays whole for a bigger gang, as Volcano's HyperNode binpack), the emptiest
// first for worst fit; ties by label value.
void order_domains(const ClusterState& cluster, std::span<const TopologyDomain> domains,
                   const ResourceVector& need, const std::vector<std::uint8_t>* within,
                   NodeOrder node_order, DomainOrder& order) {
  order.clear();
  const NodeScope scope{false, {}, within};
  for (std::uint32_t d = 0; d < domains.size(); ++d) {
    ResourceVector free;
    for (NodeIndex n : domains[d].nodes)
      if (usable(scope, n)) free += cluster.node(n).free;
    if (need.fits_in(free)) order.emplace_back(free.get(kGpu), d);
  }
  if (node_order == NodeOrder::kBestFit)
    std::sort(order.begin(), order.end());
  else
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
}

}  // namespace

// ------------------------------------------------------------------ tiers

TopologyTiers::TopologyTiers() {
  for (std::int32_t tier = 1; tier <= kMaxTopologyTiers; ++tier)
    labels_[static_cast<std::size_t>(tier - 1)] =
        std::string(kTopologyTierLabelPrefix) + std::to_string(tier);
}

void TopologyTiers::set_label(std::int32_t tier, std::string key) {
  if (tier < 1 || tier > kMaxTopologyTiers)
    throw std::invalid_argument("tier must be from 1 to " + std::to_string(kMaxTopologyTiers));
  if (key.empty()) throw std::invalid_argument("the label key must not be empty");
  labels_[static_cast<std::size_t>(tier - 1)] = std::move(key);
}

const std::string& TopologyTiers::label(std::int32_t tier) const {
  return labels_[static_cast<std::size_t>(clamp_tier(tier) - 1)];
}

void TopologyTiers::apply(const std::string& text) {
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0)
    throw std::invalid_argument("expected TIER=LABEL such as 1=nvidia.com/gpu.clique");
  const std::string tier = text.substr(0, equals);
  if (tier.find_first_not_of("0123456789") != std::string::npos || tier.size() > 2)
    throw std::invalid_argument("expected TIER=LABEL with TIER from 1 to " +
                                std::to_string(kMaxTopologyTiers));
  set_label(std::stoi(tier), text.substr(equals + 1));
}

std::int32_t clamp_tier(std::int32_t tier) {
  return std::clamp<std::int32_t>(tier, 1, kMaxTopologyTiers);
}

TopologyConstraint topology_constraint(const std::string& mode, std::int32_t highest_tier_allowed,
                                       Mode default_mode) {
  TopologyConstraint constraint;
  constraint.mode = mode == "hard" ? Mode::kHard : mode == "soft" ? Mode::kSoft : default_mode;
  // Hard without a tier: the tightest only (Volcano's default). Soft without
  // one: every tier, tightest first, before giving up on locality.
  const std::int32_t unset = constraint.mode == Mode::kSoft ? kMaxTopologyTiers : 1;
  constraint.highest_tier = clamp_tier(highest_tier_allowed > 0 ? highest_tier_allowed : unset);
  return constraint;
}

// ------------------------------------------------------------------ reason

namespace {

std::string tier_labels(const TopologyTiers& tiers, std::int32_t highest) {
  std::string text;
  for (std::int32_t tier = 1; tier <= highest; ++tier)
    text += (tier == 1 ? "" : " or ") + tiers.label(tier) + " (tier " + std::to_string(tier) + ")";
  return text;
}

}  // namespace

std::string topology_misfit_text(const GangShape& gang, const TopologyTiers& tiers,
                                 const std::string& best_cluster, std::int32_t replicas_needed,
                                 std::int32_t best_domain_placed) {
  std::string text = "no network-topology domain holds it (networkTopology hard): needs ";
  if (gang.topology.hard()) {
    text += std::to_string(replicas_needed) + " replicas on nodes sharing one value of " +
            tier_labels(tiers, gang.topology.highest_tier) +
            "; nodes without the label do not count";
  } else {
    text += "each partition of";
    for (const TaskShape& task : gang.tasks)
      if (task.partition_size > 0 && task.partition_topology.hard())
        text += " task " + task.name + " (" + std::to_string(task.partition_size) +
                " replicas) on nodes sharing one value of " +
                tier_labels(tiers, task.partition_topology.highest_tier);
  }
  if (!best_cluster.empty())
    text += "; best cluster " + best_cluster + " fits " + std::to_string(best_domain_placed) +
            (gang.topology.hard() ? " in one domain" : "");
  return text;
}

// ------------------------------------------------------------------ index

// One entry per cluster name, so the index stays as small as the pool; a
// different object under that name (a copy, a moved vector), other nodes or a
// newer report start the grouping afresh.
TopologyIndex::ClusterDomains& TopologyIndex::entry_for(const ClusterState& cluster) {
  auto it = std::find_if(clusters_.begin(), clusters_.end(),
                         [&](const ClusterDomains& entry) { return entry.name == cluster.name(); });
  const bool fresh = it == clusters_.end();
  ClusterDomains& entry = fresh ? clusters_.emplace_back() : *it;
  if (fresh || entry.cluster != &cluster || entry.generation != cluster.report_generation() ||
      entry.node_count != cluster.node_count()) {
    entry.cluster = &cluster;
    entry.name = cluster.name();
    entry.generation = cluster.report_generation();
    entry.node_count = cluster.node_count();
    entry.built.fill(false);
  }
  return entry;
}

std::span<const TopologyDomain> TopologyIndex::domains(const ClusterState& cluster,
                                                       std::int32_t tier,
                                                       const TopologyTiers& tiers) {
  ClusterDomains& entry = entry_for(cluster);
  const std::size_t slot = static_cast<std::size_t>(clamp_tier(tier) - 1);
  if (!entry.built[slot]) {
    entry.tiers[slot] = group_by_label(cluster, tiers.label(tier));
    entry.built[slot] = true;
  }
  return entry.tiers[slot];
}

// ------------------------------------------------------------------ node choice

std::optional<NodeIndex> choose_node_in(const ClusterState& cluster, const NodeScope& scope,
                                        const TaskShape& task, std::uint32_t requester,
                                        NodeOrder order) {
  const bool holds = cluster.has_holds();
  std::optional<NodeIndex> best;
  std::int64_t best_free = 0;
  for (NodeIndex n : scope.nodes) {
    if (!usable(scope, n)) continue;
    if (holds && cluster.held_for(n) != kNoOwner && cluster.held_for(n) != requester) continue;
    const Node& node = cluster.node(n);
    if (!task.per_replica.fits_in(node.free) || !PlacementPolicy::may_run_on(node, task)) continue;
    const std::int64_t free = node.free.get(kGpu);
    const bool better = order == NodeOrder::kBestFit ? free < best_free : free > best_free;
    if (!best || better) {
      best = n;
      best_free = free;
    }
  }
  return best;
}

// ------------------------------------------------------------------ placement

// Tier by tier, tightest first, domain by domain: hard takes the first
// domain that fits the gang; soft only one that holds every replica, else it
// places without the constraint. On failure `placed` is the most replicas one
// domain held (for the pending reason).
FitResult GangPlacer::place_in_topology(ClusterState& cluster, const GangShape& gang,
                                        std::vector<NodeAssignment>& out, std::uint32_t requester,
                                        const PlacementPolicy& chooser) {
  in_job_domain_.assign(cluster.node_count(), 0);
  // Soft settles only for a domain that holds every replica; hard tries every
  // domain, so that its pending reason can say how close the best one came.
  const ResourceVector need = gang.topology.hard() ? ResourceVector{} : gang.total();
  std::int32_t best = 0;
  for (std::int32_t tier = 1; tier <= gang.topology.highest_tier; ++tier) {
    const std::span<const TopologyDomain> domains = domains_.domains(cluster, tier, tiers_);
    order_domains(cluster, domains, need, nullptr, chooser.node_order(), job_domain_order_);
    for (const auto& [free_gpus, d] : job_domain_order_) {
      const TopologyDomain& domain = domains[d];
      for (NodeIndex n : domain.nodes) in_job_domain_[n] = 1;
      const FitResult fit =
          place_greedy(cluster, gang, out, requester, chooser, NodeScope{false, domain.nodes});
      for (NodeIndex n : domain.nodes) in_job_domain_[n] = 0;
      const bool enough = fit.fits && (gang.topology.hard() || fit.placed == gang.total_replicas());
      if (enough) return fit;
      if (fit.fits) release_from(cluster, out, 0);
      best = std::max(best, fit.placed);
    }
  }
  if (gang.topology.hard()) return FitResult{false, best};
  return place_greedy(cluster, gang, out, requester, chooser, NodeScope{});
}

std::int32_t GangPlacer::place_partitions(ClusterState& cluster, std::uint32_t task_index,
                                          const TaskShape& task, std::vector<NodeAssignment>& out,
                                          std::uint32_t requester, const PlacementPolicy& chooser,
                                          const NodeScope& scope) {
  std::int32_t placed = 0;
  while (placed < task.replicas) {
    // A split's rest may leave a short last partition.
    const std::int32_t count = std::min(task.partition_size, task.replicas - placed);
    // Partitions are alike: when one finds no room, later ones find none either.
    if (!place_partition(cluster, task_index, count, task, out, requester, chooser, scope)) break;
    placed += count;
  }
  return placed;
}

// One partition whole within one domain of its tier (inside the gang's own
// domain when it has one), tightest tier first; soft falls back to any nodes
// of `scope`. All or nothing.
bool GangPlacer::place_partition(ClusterState& cluster, std::uint32_t task_index,
                                 std::int32_t count, const TaskShape& task,
                                 std::vector<NodeAssignment>& out, std::uint32_t requester,
                                 const PlacementPolicy& chooser, const NodeScope& scope) {
  const std::size_t mark = out.size();
  const std::vector<std::uint8_t>* within = scope.every ? nullptr : &in_job_domain_;
  const ResourceVector need = task.per_replica * count;
  for (std::int32_t tier = 1; tier <= task.partition_topology.highest_tier; ++tier) {
    const std::span<const TopologyDomain> domains = domains_.domains(cluster, tier, tiers_);
    order_domains(cluster, domains, need, within, chooser.node_order(), partition_domain_order_);
    for (const auto& [free_gpus, d] : partition_domain_order_) {
      const NodeScope domain{false, domains[d].nodes, within};
      if (place_replicas(cluster, task_index, count, task, out, requester, chooser, domain) ==
          count)
        return true;
      release_from(cluster, out, mark);
    }
  }
  if (task.partition_topology.hard()) return false;
  if (place_replicas(cluster, task_index, count, task, out, requester, chooser, scope) == count)
    return true;
  release_from(cluster, out, mark);
  return false;
}

}  // namespace gantry::hub
