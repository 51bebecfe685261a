#include "hub/cluster_filters.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace gantry::hub {

namespace {

bool ready(const FilterInput& input) {
  return input.cluster.ready();
}

bool uncordoned(const FilterInput& input) {
  return !input.cluster.cordoned();
}

// gantry.io/clusters: a job pinned to clusters goes to none other.
bool pinned_clusters(const FilterInput& input) {
  const std::vector<ClusterIndex>& allowed = input.job.allowed_clusters;
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), input.index) != allowed.end();
}

// gantry.io/cluster-selector: the cluster's labels match it.
bool cluster_selector(const FilterInput& input) {
  const Labels* selector = input.job.cluster_selector();
  return selector == nullptr || labels_match(input.cluster.labels(), *selector);
}

bool not_backed_off(const FilterInput& input) {
  return !backed_off(input.job, input.index, input.now);
}

// Enough free in total for the job's minimum (a GPU product it selects
// included): a node-level fit cannot succeed otherwise, so it is not tried.
bool free_in_total(const FilterInput& input) {
  return input.job.minimum.fits_in(input.cluster.total_free());
}

using Scope = FilterScope;

// The registration table. kEligible rows first: first_refusing stops at the
// first row outside the scope asked for.
constexpr std::array kClusterFilters{
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

}  // namespace

std::span<const ClusterFilter> registered_cluster_filters() {
  return kClusterFilters;
}

const ClusterFilter* find_cluster_filter(std::string_view name) {
  for (const ClusterFilter& filter : kClusterFilters)
    if (filter.name == name) return &filter;
  return nullptr;
}

const ClusterFilter* first_refusing(const FilterInput& input, FilterScope scope) {
  for (const ClusterFilter& filter : kClusterFilters) {
    if (filter.scope > scope) break;
    if (!filter.passes(input)) return &filter;
  }
  return nullptr;
}

bool backed_off(const Job& job, ClusterIndex index, TimeMs now) {
  if (!job.has_backoffs()) return false;
  for (const ClusterBackoff& backoff : job.placement_notes->backoffs)
    if (backoff.cluster == index) return now < backoff.until;
  return false;
}

std::string eligibility_refusals(const std::vector<ClusterState>& clusters, const Job& job) {
  std::array<std::size_t, kClusterFilters.size()> refused{};
  for (ClusterIndex c = 0; c < clusters.size(); ++c) {
    const ClusterFilter* filter =
        first_refusing(FilterInput{clusters[c], c, job, 0}, FilterScope::kEligible);
    if (filter == nullptr) return "";
    ++refused[static_cast<std::size_t>(filter - kClusterFilters.data())];
  }
  std::array<std::size_t, kClusterFilters.size()> order{};
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return refused[a] > refused[b]; });
  std::string text;
  for (std::size_t i : order) {
    if (refused[i] == 0) break;
    text += (text.empty() ? "" : ", ") + std::to_string(refused[i]) + " " +
            std::string(kClusterFilters[i].refusal);
  }
  return text;
}

}  // namespace gantry::hub
