#include "hub/topology_score.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace gantry::hub {

namespace {

// The most free whole GPUs that nodes sharing one value of `label` have.
std::int64_t best_domain_gpus(const ClusterState& cluster, const std::string& label) {
  std::unordered_map<std::string, std::int64_t> free_by_domain;
  std::int64_t best = 0;
  for (NodeIndex n = 0; n < cluster.node_count(); ++n) {
    const Node& node = cluster.node(n);
    const auto domain = node.labels.find(label);
    if (domain == node.labels.end()) continue;
    std::int64_t& free = free_by_domain[domain->second];
    free += node.free.gpus();
    best = std::max(best, free);
  }
  return best;
}

}  // namespace

std::int64_t gpus_in_one_domain(const ScoreInput& input) {
  const TopologyConstraint& wanted = input.job.gang.topology;
  if (!wanted.any()) return 0;
  const std::int64_t needed = input.job.minimum().gpus();
  std::int64_t score = 0;
  for (std::int32_t tier = 1; tier <= clamp_tier(wanted.highest_tier); ++tier)
    score += std::min(best_domain_gpus(input.cluster, input.tiers.label(tier)), needed);
  return score;
}

}  // namespace gantry::hub
