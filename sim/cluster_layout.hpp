// What the simulated clusters are made of: identical 8-GPU nodes (counted
// from the trace's demand unless given) or the Alibaba openb nodes dealt out
// over the clusters. See sim/README.md for the rules.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hub/cluster_state.hpp"
#include "sim/itp_trace.hpp"
#include "sim/openb_nodes.hpp"

namespace gantry::sim {

inline constexpr std::int64_t kGpusPerNode = 8;
// Default of the sizing rule: capacity for the demand of 90% of the time.
inline constexpr double kDefaultSizePercentile = 90;

struct SimCluster {
  std::string name;
  std::vector<hub::NodeSpec> nodes;
  std::int64_t gpus() const;
};

// The GPUs a trace would keep busy on a cluster with no limit (every job
// starting when submitted), over the span from its first submission to its
// last end.
struct TraceDemand {
  std::int64_t largest_job_gpus = 0;
  double mean_busy_gpus = 0;  // GPU-seconds / span
  // Time-weighted percentile: the fewest GPUs that cover the demand for
  // `percent` of the span.
  std::int64_t percentile_busy_gpus = 0;
  double percent = 0;
};
TraceDemand measure_demand(const Trace& trace, double percent);

// The sizing rule: enough 8-GPU nodes for the largest job and for the
// demand's percentile.
std::int64_t nodes_for_demand(const TraceDemand& demand);

// `count` nodes of 8 GPUs named "<cluster>-nNNNN".
std::vector<hub::NodeSpec> identical_gpu_nodes(const std::string& cluster, std::int64_t count);

// Deals every openb node to one cluster: first each cluster gets the nodes its
// largest job needs, then each remaining node (in file order) goes to the
// cluster furthest below its share of GPUs, shares proportional to
// `weight_gpus`. Throws std::invalid_argument when the list cannot give every
// cluster its largest job.
std::vector<std::vector<hub::NodeSpec>> split_openb_nodes(
    const std::vector<OpenbNode>& nodes, const std::vector<std::int64_t>& weight_gpus,
    const std::vector<std::int64_t>& largest_job_gpus);

}  // namespace gantry::sim
