// Builders shared by the core tests (the fixtures' harness: core_harness.hpp).
#pragma once

#include <string>
#include <vector>

#include "hub/cluster_state.hpp"
#include "hub/gang.hpp"
#include "hub/job.hpp"
#include "hub/resources.hpp"

namespace gantry::hub::testing {

inline ResourceVector gpus(std::int64_t count, std::int64_t cpu_cores = 0) {
  ResourceVector v;
  v.set(kGpu, count * kMilli);
  v.set(kCpu, cpu_cores * kMilli);
  return v;
}

// `count` nodes named prefix-0.. with `gpu` GPUs and `cpu` cores each.
inline std::vector<NodeSpec> nodes(int count, std::int64_t gpu, std::int64_t cpu = 64,
                                   const std::string& prefix = "node", Labels labels = {}) {
  std::vector<NodeSpec> out;
  for (int i = 0; i < count; ++i)
    out.push_back(NodeSpec{prefix + "-" + std::to_string(i), labels, gpus(gpu, cpu), {}});
  return out;
}

// A ready cluster of these nodes, outside any SchedulerCore.
inline ClusterState ready_cluster(const std::string& name, const std::vector<NodeSpec>& specs) {
  ClusterState cluster(name);
  cluster.set_nodes(specs);
  cluster.set_ready(true);
  return cluster;
}

// A job of this gang, as submit() would resolve it, outside any SchedulerCore.
inline Job job_of(GangShape gang, std::vector<ClusterIndex> allowed = {}) {
  count_selected_gpu_products(gang);
  Job job;
  job.set_request(gang.total(), gang.minimum());
  job.gang = std::move(gang);
  job.allowed_clusters = std::move(allowed);
  return job;
}

}  // namespace gantry::hub::testing
