// Builders shared by the core tests (the fixtures' harness: core_harness.hpp).
#pragma once

#include <string>
#include <vector>

#include "hub/cluster_state.hpp"
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

}  // namespace gantry::hub::testing
