#include "sim/empty_pool_fit.hpp"

namespace gantry::sim {

EmptyPoolFit::EmptyPoolFit(const hub::SchedulerOptions& options)
    : max_split_parts_(options.max_split_parts), placer_(options.placement) {}

void EmptyPoolFit::add_cluster(const hub::ClusterState& empty) {
  every_cluster_.push_back(hub::ClusterRank{static_cast<hub::ClusterIndex>(empty_.size()), 0, 0});
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
  const std::int32_t placed =
      hub::plan_split(empty_, every_cluster_, gang, placer_, placer_.policy(), hub::kNoOwner,
                      max_split_parts_, split_);
  const std::size_t parts = split_.parts.size();
  hub::release_split(empty_, split_);
  return placed >= gang.min_available ? parts : 0;
}

}  // namespace gantry::sim
