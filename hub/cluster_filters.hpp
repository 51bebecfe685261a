// Which clusters a gang may be tried on: the feasibility checks at cluster
// level, registered by name in one table (as Volcano's predicates and Nomad's
// feasibility checkers are). Eligibility (PlacementPolicy::eligible and
// worth_trying), every pass stage that asks it, and the pending reason that
// counts why no cluster may take a job all read this table, so what decides
// and what explains cannot drift apart.
//
// A new check is one function (seeing a FilterInput) and one row of the
// table in cluster_filters.cpp (docs/adding-a-policy.md).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
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

// Every check, the kEligible ones first (the registration table).
std::span<const ClusterFilter> registered_cluster_filters();
// nullptr when no check has that name.
const ClusterFilter* find_cluster_filter(std::string_view name);
// The first check within `scope` (kWorthTrying: all of them) that turns the
// cluster away; nullptr when it passes them all.
const ClusterFilter* first_refusing(const FilterInput& input, FilterScope scope);

// The cluster refused the job and its backoff has not run out at `now`.
bool backed_off(const Job& job, ClusterIndex index, TimeMs now);

// Why none of `clusters` is eligible for the job, counted by the first check
// that turns each away, most frequent first: "2 not ready, 1 cordoned". ""
// when one of them is eligible now.
std::string eligibility_refusals(const std::vector<ClusterState>& clusters, const Job& job);

}  // namespace gantry::hub
