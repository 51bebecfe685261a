#include "sim/empty_pool_fit.hpp"

namespace gantry::sim {

EmptyPoolFit::EmptyPoolFit(const hub::SchedulerOptions& options)
    : max_split_parts_(options.max_split_parts), placer_(options.placement) {}

void EmptyPoolFit::add_cluster(const hub::ClusterState& empty) {
  empty_.push_back(empty);
  fits_cluster_.emplace_back();
}

bool EmptyPoolFit::fits_cluster(std::uint32_t cluster, std::int64_t gpus,
                                const hub::GangShape& gang) {
  auto [it, inserted] = fits_cluster_[cluster].try_emplace(gpus, false);
  if (inserted) it->second = placer_.check(empty_[cluster], gang).fits;
  return it->second;
}

bool EmptyPoolFit::fits_some_cluster(std::int64_t gpus, const hub::GangShape& gang) {
  for (std::uint32_t c = 0; c < empty_.size(); ++c)
    if (fits_cluster(c, gpus, gang)) return true;
  return false;
}

bool EmptyPoolFit::fits_split(std::int64_t gpus, const hub::GangShape& gang) {
  auto [it, inserted] = fits_split_.try_emplace(gpus, false);
  if (inserted) it->second = split_parts(gang) > 0;
  return it->second;
}

std::size_t EmptyPoolFit::split_parts(const hub::GangShape& gang) {
  std::vector<hub::ClusterState> clusters = empty_;
  std::vector<bool> used(clusters.size(), false);
  hub::GangShape rest = gang;
  rest.min_available = 1;  // each part: as many replicas as the cluster holds
  std::int32_t placed = 0;
  std::size_t parts = 0;
  while (placed < gang.min_available && parts < max_split_parts_) {
    std::uint32_t best = 0;
    std::int32_t best_count = 0;
    for (std::uint32_t c = 0; c < clusters.size(); ++c) {
      if (used[c]) continue;
      const hub::FitResult fit = placer_.check(clusters[c], rest);
      if (fit.fits && fit.placed > best_count) {
        best = c;
        best_count = fit.placed;
      }
    }
    if (best_count == 0) break;
    placer_.place(clusters[best], rest, assignment_);
    for (const hub::NodeAssignment& entry : assignment_) --rest.tasks[entry.task].replicas;
    placed += static_cast<std::int32_t>(assignment_.size());
    used[best] = true;
    ++parts;
  }
  return placed >= gang.min_available ? parts : 0;
}

}  // namespace gantry::sim
