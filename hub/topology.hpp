// Network topology from node labels: Volcano's HyperNode tiers without
// HyperNode objects. Tier N is one node label key; the nodes sharing one value
// of it form one domain of tier N (tier 1 the tightest, e.g. an NVLink domain
// or a leaf switch; higher tiers wider, e.g. a rack, a spine). A node without
// the label belongs to no domain of that tier.
//
// The placer (hub/placement.hpp) groups a cluster's nodes into domains once
// per tier and keeps the grouping until the cluster's nodes change (its report
// generation), so a topology job costs O(nodes) the first time a pass looks at
// a cluster and O(domain) per replica after; jobs without a topology never
// touch any of it.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hub/cluster_state.hpp"
#include "hub/gang.hpp"

namespace gantry::hub {

inline constexpr std::int32_t kMaxTopologyTiers = 8;
// The default label of tier N: gantry.io/topology-tier-N.
inline constexpr std::string_view kTopologyTierLabelPrefix = "gantry.io/topology-tier-";

// Which node label names the domain of each tier.
class TopologyTiers {
 public:
  TopologyTiers();  // every tier on its default label
  // Tier 1 .. kMaxTopologyTiers; throws std::invalid_argument otherwise.
  void set_label(std::int32_t tier, std::string key);
  const std::string& label(std::int32_t tier) const;
  // "N=KEY" (hub option --topology-tier-label) applied; throws
  // std::invalid_argument saying what is wrong with `text`.
  void apply(const std::string& text);
  // Tier 1's label first, one per tier.
  std::vector<std::string> labels() const { return {labels_.begin(), labels_.end()}; }
  bool operator==(const TopologyTiers&) const = default;

 private:
  std::array<std::string, kMaxTopologyTiers> labels_;
};

// The highest tier a constraint may use, within what the tiers can name.
std::int32_t clamp_tier(std::int32_t tier);

// Volcano's networkTopology ("hard" | "soft" | "", highestTierAllowed 0 = not
// given) as placement reads it; `default_mode` when the mode is empty.
TopologyConstraint topology_constraint(const std::string& mode, std::int32_t highest_tier_allowed,
                                       TopologyConstraint::Mode default_mode);

// Why a hard-topology gang waits, for its pending reason: which labels it
// needs shared, and the most replicas one domain of `best_cluster` held.
std::string topology_misfit_text(const GangShape& gang, const TopologyTiers& tiers,
                                 const std::string& best_cluster, std::int32_t replicas_needed,
                                 std::int32_t best_domain_placed);

// The nodes sharing one value of a tier's label.
struct TopologyDomain {
  std::string value;
  std::vector<NodeIndex> nodes;
};

// A cluster's domains per tier, built on first use.
class TopologyIndex {
 public:
  std::span<const TopologyDomain> domains(const ClusterState& cluster, std::int32_t tier,
                                          const TopologyTiers& tiers);

 private:
  struct ClusterDomains {
    // What identifies the grouping: the nodes (and so their labels) change
    // only with a new report generation.
    const ClusterState* cluster = nullptr;
    std::string name;
    std::uint64_t generation = 0;
    std::size_t node_count = 0;
    std::array<bool, kMaxTopologyTiers> built{};
    std::array<std::vector<TopologyDomain>, kMaxTopologyTiers> tiers;
  };
  ClusterDomains& entry_for(const ClusterState& cluster);

  std::vector<ClusterDomains> clusters_;  // one per cluster name: searched linearly
};

}  // namespace gantry::hub
