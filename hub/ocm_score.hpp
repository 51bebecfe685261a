// Open Cluster Management's AddOnPlacementScore, as its resource-usage-collect
// addon computes it: `available` = allocatable minus what is held, on
// schedulable nodes; node scope = the single node with the most available,
// cluster scope = the sum over nodes; each normalised to -100..100 by OCM's
// ScoreNormalizer over a fixed range (the addon's defaults: 0..100 cores,
// 0..1 TiB of memory in MiB, 0..20 GPUs).
#pragma once

#include <array>
#include <cstdint>
#include <utility>

#include "hub/cluster_state.hpp"
#include "protocol/messages.hpp"

namespace gantry::hub {

// OCM's ScoreNormalizer: a value above `max` scores 100, at or below `min`
// -100, else 200 * (value - min) / (max - min) - 100, truncated toward zero.
std::int32_t ocm_normalize(double value, double min, double max);

// The addon's ranges.
inline constexpr double kOcmMaxCpuCores = 100;
inline constexpr double kOcmMaxMemoryMiB = 1024.0 * 1024.0;
inline constexpr double kOcmMaxGpus = 20;

// The addon's six scores, named as it names them.
struct OcmScores {
  std::int32_t cpu_node_available = -100;
  std::int32_t cpu_cluster_available = -100;
  std::int32_t mem_node_available = -100;
  std::int32_t mem_cluster_available = -100;
  std::int32_t gpu_node_available = -100;
  std::int32_t gpu_cluster_available = -100;
};

// The scores of a cluster's free resources as the hub sees them (what its
// agent reported, less what the hub holds for dispatches not yet reported).
// `gpu`: which GPUs count — nvidia.com/gpu, or one product's resource.
OcmScores ocm_scores(const ClusterState& cluster, ResourceId gpu = kGpu);

// The six scores of an agent's report under the addon's names (its
// agent.go), in its order: what gantryctl shows and the agent writes to an
// AddOnPlacementScore.
using NamedOcmScore = std::pair<const char*, std::int32_t>;
std::array<NamedOcmScore, 6> named_ocm_scores(const protocol::PlacementScores& scores);

}  // namespace gantry::hub
