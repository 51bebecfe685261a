#include "sim/cluster_layout.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <stdexcept>

namespace gantry::sim {
namespace {

// Nodes of identical clusters look like a DGX-class server: the trace jobs
// only ask for GPUs, but a node without CPU or memory would be odd to show.
constexpr std::int64_t kIdenticalNodeCpuMilli = 128 * hub::kMilli;
constexpr std::int64_t kIdenticalNodeMemoryBytes = std::int64_t{1} << 40;
constexpr std::int64_t kBytesPerMib = std::int64_t{1} << 20;

hub::NodeSpec make_node(std::string name, std::int64_t cpu_milli, std::int64_t memory_bytes,
                        std::int64_t gpus) {
  hub::NodeSpec node;
  node.name = std::move(name);
  node.allocatable.set(hub::kCpu, cpu_milli);
  node.allocatable.set(hub::kMemory, memory_bytes * hub::kMilli);
  node.allocatable.set(hub::kGpu, gpus * hub::kMilli);
  return node;
}

hub::NodeSpec from_openb(const OpenbNode& node) {
  hub::NodeSpec spec =
      make_node(node.name, node.cpu_milli, node.memory_mib * kBytesPerMib, node.gpus);
  if (!node.model.empty()) spec.labels[std::string(hub::kGpuProductLabel)] = node.model;
  return spec;
}

// The nodes the largest job needs: one node with room for it, or whole 8-GPU
// nodes for a multi-node gang.
struct NodeNeed {
  std::int64_t node_gpus;
  std::int64_t count;
};
NodeNeed need_for_largest_job(std::int64_t gpus) {
  if (gpus <= kGpusPerNode) return {gpus, 1};
  return {kGpusPerNode, (gpus + kGpusPerNode - 1) / kGpusPerNode};
}

std::size_t furthest_below_share(const std::vector<double>& target,
                                 const std::vector<std::int64_t>& got) {
  std::size_t best = 0;
  for (std::size_t c = 1; c < target.size(); ++c)
    if (target[c] - static_cast<double>(got[c]) > target[best] - static_cast<double>(got[best]))
      best = c;
  return best;
}

}  // namespace

std::int64_t SimCluster::gpus() const {
  std::int64_t total = 0;
  for (const auto& node : nodes) total += node.allocatable.gpus();
  return total;
}

TraceDemand measure_demand(const Trace& trace, double percent) {
  TraceDemand demand;
  demand.percent = percent;
  if (trace.jobs.empty()) return demand;
  // Sweep the starts (+gpus) and ends (-gpus) in time order, timing how long
  // each level of busy GPUs lasts.
  std::vector<std::pair<std::int64_t, std::int64_t>> changes;  // (time, gpu delta)
  changes.reserve(trace.jobs.size() * 2);
  for (const auto& job : trace.jobs) {
    demand.largest_job_gpus = std::max(demand.largest_job_gpus, job.gpus);
    changes.emplace_back(job.submit_s, job.gpus);
    changes.emplace_back(job.submit_s + job.duration_s, -job.gpus);
  }
  std::sort(changes.begin(), changes.end());
  std::map<std::int64_t, std::int64_t> seconds_at_level;
  std::int64_t busy = 0;
  for (std::size_t i = 0; i + 1 < changes.size(); ++i) {
    busy += changes[i].second;
    if (changes[i + 1].first > changes[i].first)
      seconds_at_level[busy] += changes[i + 1].first - changes[i].first;
  }
  const std::int64_t span = changes.back().first - changes.front().first;
  if (span == 0) return demand;  // nothing ever runs for a second: only the largest job counts
  double gpu_seconds = 0;
  for (const auto& [level, seconds] : seconds_at_level)
    gpu_seconds += static_cast<double>(level) * static_cast<double>(seconds);
  demand.mean_busy_gpus = gpu_seconds / static_cast<double>(span);
  std::int64_t covered = 0;
  for (const auto& [level, seconds] : seconds_at_level) {
    covered += seconds;
    demand.percentile_busy_gpus = level;
    if (static_cast<double>(covered) >= percent / 100.0 * static_cast<double>(span)) break;
  }
  return demand;
}

std::int64_t nodes_for_demand(const TraceDemand& demand) {
  const auto ceil_nodes = [](std::int64_t gpus) {
    return (gpus + kGpusPerNode - 1) / kGpusPerNode;
  };
  return std::max<std::int64_t>(
      {1, ceil_nodes(demand.largest_job_gpus), ceil_nodes(demand.percentile_busy_gpus)});
}

std::vector<hub::NodeSpec> identical_gpu_nodes(const std::string& cluster, std::int64_t count) {
  std::vector<hub::NodeSpec> nodes;
  nodes.reserve(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    char suffix[24];
    std::snprintf(suffix, sizeof suffix, "-n%04lld", static_cast<long long>(i));
    nodes.push_back(make_node(cluster + suffix, kIdenticalNodeCpuMilli, kIdenticalNodeMemoryBytes,
                              kGpusPerNode));
  }
  return nodes;
}

std::vector<std::vector<hub::NodeSpec>> split_openb_nodes(
    const std::vector<OpenbNode>& nodes, const std::vector<std::int64_t>& weight_gpus,
    const std::vector<std::int64_t>& largest_job_gpus) {
  const std::size_t clusters = weight_gpus.size();
  std::vector<std::vector<hub::NodeSpec>> out(clusters);
  std::vector<std::int64_t> got(clusters, 0);
  std::vector<bool> dealt(nodes.size(), false);
  if (clusters == 0) return out;

  for (std::size_t c = 0; c < clusters; ++c) {
    const NodeNeed need = need_for_largest_job(largest_job_gpus[c]);
    // Smallest node that is large enough, so 8-GPU nodes are kept for gangs.
    for (std::int64_t taken = 0; taken < need.count; ++taken) {
      std::size_t pick = nodes.size();
      for (std::size_t n = 0; n < nodes.size(); ++n)
        if (!dealt[n] && nodes[n].gpus >= need.node_gpus &&
            (pick == nodes.size() || nodes[n].gpus < nodes[pick].gpus))
          pick = n;
      if (pick == nodes.size())
        throw std::invalid_argument(
            "--openb: too few nodes with " + std::to_string(need.node_gpus) +
            "+ GPUs for the largest job (" + std::to_string(largest_job_gpus[c]) +
            " GPUs) of cluster #" + std::to_string(c + 1));
      dealt[pick] = true;
      got[c] += nodes[pick].gpus;
      out[c].push_back(from_openb(nodes[pick]));
    }
  }

  const double total_weight =
      static_cast<double>(std::accumulate(weight_gpus.begin(), weight_gpus.end(), std::int64_t{0}));
  std::int64_t total_gpus = 0;
  for (const auto& node : nodes) total_gpus += node.gpus;
  std::vector<double> target(clusters);
  for (std::size_t c = 0; c < clusters; ++c)
    target[c] = static_cast<double>(total_gpus) * static_cast<double>(weight_gpus[c]) /
                std::max(1.0, total_weight);

  for (std::size_t n = 0; n < nodes.size(); ++n) {
    if (dealt[n]) continue;
    const std::size_t c = furthest_below_share(target, got);
    got[c] += nodes[n].gpus;
    out[c].push_back(from_openb(nodes[n]));
  }
  return out;
}

}  // namespace gantry::sim
