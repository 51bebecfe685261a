// Which clusters a gang may be tried on: the feasibility checks at cluster
// level, registered by name in one table (as Volcano's predicates and Nomad's
// feasibility checkers are). Eligibility (PlacementPolicy::eligible and
// worth_trying), every pass stage that asks it, and the pending reason that
// counts why no cluster may take a job all read this table, so what decides
// and what explains cannot drift apart.
//
// A new check is one function (seeing a FilterInput) and one row of the
// table below (docs/adding-a-policy.md).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hub/cluster_state.hpp"
#include "hub/job.hpp"

namespace gantry::hub {

// What a check sees: one cluster, its index (jobs pin clusters by index), the
// job, and the pass's time (backoffs run out; kEligible checks never read it).
struct FilterInput {
  const ClusterState& cluster;
  ClusterIndex index;
  const Job& job;
  TimeMs now;
};

// How far a check reaches; the table lists the narrower scope first.
enum class FilterScope : std::uint8_t {
  // Whether the cluster may take the job at all: what starvation holds,
  // eviction searches, elastic growth and backfill plans consider.
  kEligible,
  // Whether a node-level try in this pass is worth it (the pass's placement
  // and split planning): backoffs, free room in total.
  kWorthTrying,
};

struct ClusterFilter {
  std::string_view name;
  FilterScope scope = FilterScope::kEligible;
  bool (*passes)(const FilterInput& input) = nullptr;
  // How a pending reason counts the clusters it turned away ("2 cordoned").
  std::string_view refusal;
};

// The cluster refused the job and its backoff has not run out at `now`.
bool backed_off(const Job& job, ClusterIndex index, TimeMs now);

// The checks and their table are in this header so that the pass's
// eligibility tests, asked for every cluster at every placement, compile to
// the checks themselves (the loop over a constant table unrolls).
namespace cluster_filters {

inline bool ready(const FilterInput& input) {
  return input.cluster.ready();
}

inline bool uncordoned(const FilterInput& input) {
  return !input.cluster.cordoned();
}

// gantry.io/clusters: a job pinned to clusters goes to none other.
inline bool pinned_clusters(const FilterInput& input) {
  const std::vector<ClusterIndex>& allowed = input.job.allowed_clusters;
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), input.index) != allowed.end();
}

// gantry.io/cluster-selector: the cluster's labels match it.
inline bool cluster_selector(const FilterInput& input) {
  const Labels* selector = input.job.cluster_selector();
  return selector == nullptr || labels_match(input.cluster.labels(), *selector);
}

inline bool not_backed_off(const FilterInput& input) {
  return !backed_off(input.job, input.index, input.now);
}

// Enough free in total for the job's minimum (a GPU product it selects
// included): a node-level fit cannot succeed otherwise, so it is not tried.
inline bool free_in_total(const FilterInput& input) {
  return input.job.minimum().fits_in(input.cluster.total_free());
}

using Scope = FilterScope;

// The registration table. kEligible rows first: first_refusing stops at the
// first row outside the scope asked for.
inline constexpr std::array kClusterFilters{
    ClusterFilter{"ready", Scope::kEligible, &ready, "not ready"},
    ClusterFilter{"uncordoned", Scope::kEligible, &uncordoned, "cordoned"},
    ClusterFilter{"pinned-clusters", Scope::kEligible, &pinned_clusters,
                  "not in its gantry.io/clusters"},
    ClusterFilter{"cluster-selector", Scope::kEligible, &cluster_selector,
                  "not matching its gantry.io/cluster-selector"},
    ClusterFilter{"not-backed-off", Scope::kWorthTrying, &not_backed_off,
                  "backing off after refusing it"},
    ClusterFilter{"free-in-total", Scope::kWorthTrying, &free_in_total,
                  "short of free resources in total"},
};

static_assert(std::is_sorted(kClusterFilters.begin(), kClusterFilters.end(),
                             [](const ClusterFilter& a, const ClusterFilter& b) {
                               return a.scope < b.scope;
                             }),
              "narrower scopes first: first_refusing stops at the first wider row");

}  // namespace cluster_filters

// Every check, the kEligible ones first (the registration table).
inline std::span<const ClusterFilter> registered_cluster_filters() {
  return cluster_filters::kClusterFilters;
}
// nullptr when no check has that name.
const ClusterFilter* find_cluster_filter(std::string_view name);
namespace cluster_filters {

// Whether the table's row `Row` applies within `scope` and turns the cluster
// away. The check is taken as a constant, so the call is direct and inlined:
// a loop over the rows compiled to an indirect call per row and cluster.
template <std::size_t Row>
bool refuses(const FilterInput& input, FilterScope scope) {
  constexpr FilterScope row_scope = kClusterFilters[Row].scope;
  constexpr auto passes = kClusterFilters[Row].passes;
  return row_scope <= scope && !passes(input);
}

// The rows in table order, stopping at the first that refuses.
template <std::size_t... Row>
const ClusterFilter* first_refusing(const FilterInput& input, FilterScope scope,
                                    std::index_sequence<Row...>) {
  const ClusterFilter* refused = nullptr;
  ((refuses<Row>(input, scope) && (refused = &kClusterFilters[Row])) || ...);
  return refused;
}

}  // namespace cluster_filters

// The first check within `scope` (kWorthTrying: all of them) that turns the
// cluster away; nullptr when it passes them all.
inline const ClusterFilter* first_refusing(const FilterInput& input, FilterScope scope) {
  return cluster_filters::first_refusing(
      input, scope, std::make_index_sequence<cluster_filters::kClusterFilters.size()>{});
}

// Why none of `clusters` is eligible for the job, counted by the first check
// that turns each away, most frequent first: "2 not ready, 1 cordoned". ""
// when one of them is eligible now.
std::string eligibility_refusals(const std::vector<ClusterState>& clusters, const Job& job);

}  // namespace gantry::hub
