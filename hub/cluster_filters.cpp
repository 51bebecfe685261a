#include "hub/cluster_filters.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace gantry::hub {

const ClusterFilter* find_cluster_filter(std::string_view name) {
  for (const ClusterFilter& filter : cluster_filters::kClusterFilters)
    if (filter.name == name) return &filter;
  return nullptr;
}

bool backed_off(const Job& job, ClusterIndex index, TimeMs now) {
  if (!job.has_backoffs()) return false;
  for (const ClusterBackoff& backoff : job.placement_notes->backoffs)
    if (backoff.cluster == index) return now < backoff.until;
  return false;
}

std::string eligibility_refusals(const std::vector<ClusterState>& clusters, const Job& job) {
  std::array<std::size_t, cluster_filters::kClusterFilters.size()> refused{};
  for (ClusterIndex c = 0; c < clusters.size(); ++c) {
    const ClusterFilter* filter =
        first_refusing(FilterInput{clusters[c], c, job, 0}, FilterScope::kEligible);
    if (filter == nullptr) return "";
    ++refused[static_cast<std::size_t>(filter - cluster_filters::kClusterFilters.data())];
  }
  std::array<std::size_t, cluster_filters::kClusterFilters.size()> order{};
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return refused[a] > refused[b]; });
  std::string text;
  for (std::size_t i : order) {
    if (refused[i] == 0) break;
    text += (text.empty() ? "" : ", ") + std::to_string(refused[i]) + " " +
            std::string(cluster_filters::kClusterFilters[i].refusal);
  }
  return text;
}

}  // namespace gantry::hub
