#include "hub/ocm_score.hpp"

#include <algorithm>

namespace gantry::hub {

std::int32_t ocm_normalize(double value, double min, double max) {
  if (value > max) return 100;
  if (value <= min) return -100;
  return static_cast<std::int32_t>(200.0 * (value - min) / (max - min) - 100.0);
}

// Memory is scored in MiB, as the addon's range (1 TiB = 1024 * 1024 MiB) and
// its comment intend; its code writes `memAvailable / 1024 * 1024`, which
// leaves bytes and scores every node above 1 MiB free as 100.
OcmScores ocm_scores(const ClusterState& cluster, ResourceId gpu) {
  constexpr double kMiB = 1024.0 * 1024.0;
  double cpu_node = 0, mem_node = 0, gpu_node = 0;
  for (NodeIndex n = 0; n < cluster.node_count(); ++n) {
    const ResourceVector& free = cluster.node(n).free;
    cpu_node = std::max(cpu_node, static_cast<double>(free.get(kCpu)) / kMilli);
    mem_node = std::max(mem_node, static_cast<double>(free.get(kMemory)) / kMilli / kMiB);
    gpu_node = std::max(gpu_node, static_cast<double>(free.get(gpu)) / kMilli);
  }
  const ResourceVector& total = cluster.total_free();
  OcmScores scores;
  scores.cpu_node_available = ocm_normalize(cpu_node, 0, kOcmMaxCpuCores);
  scores.mem_node_available = ocm_normalize(mem_node, 0, kOcmMaxMemoryMiB);
  scores.gpu_node_available = ocm_normalize(gpu_node, 0, kOcmMaxGpus);
  scores.cpu_cluster_available =
      ocm_normalize(static_cast<double>(total.get(kCpu)) / kMilli, 0, kOcmMaxCpuCores);
  scores.mem_cluster_available =
      ocm_normalize(static_cast<double>(total.get(kMemory)) / kMilli / kMiB, 0, kOcmMaxMemoryMiB);
  scores.gpu_cluster_available =
      ocm_normalize(static_cast<double>(total.get(gpu)) / kMilli, 0, kOcmMaxGpus);
  return scores;
}

std::array<NamedOcmScore, 6> named_ocm_scores(const protocol::PlacementScores& scores) {
  return {NamedOcmScore{"cpuNodeAvailable", scores.cpu_node_available},
          {"cpuClusterAvailable", scores.cpu_cluster_available},
          {"memNodeAvailable", scores.mem_node_available},
          {"memClusterAvailable", scores.mem_cluster_available},
          {"gpuNodeAvailable", scores.gpu_node_available},
          {"gpuClusterAvailable", scores.gpu_cluster_available}};
}

}  // namespace gantry::hub
