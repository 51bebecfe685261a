#include "sim/cluster_layout.hpp"

#include <gtest/gtest.h>

#include <set>

namespace gantry::sim {
namespace {

// Busy GPUs: 8 + 32 = 40 during 0..100, then 8 + 4 = 12 during 100..400.
const Trace kBurst{"c", {{"a", 0, 400, 8}, {"b", 0, 100, 32}, {"c", 100, 300, 4}}};

TEST(SizingRule, CoversTheDemandPercentileOfTheTime) {
  const TraceDemand demand = measure_demand(kBurst, 90);
  EXPECT_EQ(demand.largest_job_gpus, 32);
  EXPECT_DOUBLE_EQ(demand.mean_busy_gpus, 19);  // (40 x 100 + 12 x 300) / 400
  EXPECT_EQ(demand.percentile_busy_gpus, 40);   // 12 GPUs cover only 75% of the time
  EXPECT_EQ(nodes_for_demand(demand), 5);       // ceil(40 / 8)
}

TEST(SizingRule, TheLargestJobSetsTheFloor) {
  const TraceDemand demand = measure_demand(kBurst, 75);
  EXPECT_EQ(demand.percentile_busy_gpus, 12);
  EXPECT_EQ(nodes_for_demand(demand), 4);  // 32-GPU job: 4 whole nodes
}

TEST(SizingRule, IdleTimeCounts) {
  const Trace gaps{"c", {{"a", 0, 100, 8}, {"b", 300, 100, 8}}};  // idle during 100..300
  EXPECT_EQ(measure_demand(gaps, 50).percentile_busy_gpus, 0);
  EXPECT_EQ(measure_demand(gaps, 60).percentile_busy_gpus, 8);
  EXPECT_DOUBLE_EQ(measure_demand(gaps, 50).mean_busy_gpus, 4);
}

TEST(SizingRule, AtLeastOneNode) {
  EXPECT_EQ(nodes_for_demand(measure_demand(Trace{"c", {{"a", 0, 1, 1}}}, 90)), 1);
  EXPECT_EQ(nodes_for_demand(measure_demand(Trace{"empty", {}}, 90)), 1);
}

TEST(IdenticalNodes, EightGpusEachNamedAfterTheCluster) {
  const auto nodes = identical_gpu_nodes("c7", 3);
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[2].name, "c7-n0002");
  EXPECT_EQ(nodes[2].allocatable.gpus(), 8);
  EXPECT_TRUE(nodes[2].allocated.is_zero());
}

std::vector<OpenbNode> openb_list() {
  // 3 x 8-GPU, 4 x 2-GPU, 2 x 1-GPU, 1 x 4-GPU: 38 GPUs.
  std::vector<OpenbNode> nodes;
  auto add = [&](int count, int gpus) {
    for (int i = 0; i < count; ++i)
      nodes.push_back(OpenbNode{"n" + std::to_string(nodes.size()), 64000, 262144, gpus, "T4"});
  };
  add(4, 2);
  add(3, 8);
  add(2, 1);
  add(1, 4);
  return nodes;
}

std::int64_t gpus(const std::vector<hub::NodeSpec>& nodes) {
  std::int64_t total = 0;
  for (const auto& node : nodes) total += node.allocatable.gpus();
  return total;
}

TEST(OpenbSplit, EveryNodeOnceLargestJobsFitSharesFollowWeights) {
  const auto split = split_openb_nodes(openb_list(), {8, 24}, {16, 4});
  ASSERT_EQ(split.size(), 2u);
  std::set<std::string> names;
  for (const auto& cluster : split)
    for (const auto& node : cluster) EXPECT_TRUE(names.insert(node.name).second) << node.name;
  EXPECT_EQ(names.size(), 10u);
  // Cluster 0's 16-GPU job needs two 8-GPU nodes; cluster 1's 4-GPU job the 4-GPU node.
  EXPECT_EQ(split[0][0].allocatable.gpus(), 8);
  EXPECT_EQ(split[0][1].allocatable.gpus(), 8);
  EXPECT_EQ(split[1][0].allocatable.gpus(), 4);
  // Targets 9.5 and 28.5 GPUs: cluster 0 is already over, so the rest go to cluster 1.
  EXPECT_EQ(gpus(split[0]), 16);
  EXPECT_EQ(gpus(split[1]), 22);
  EXPECT_EQ(split[1][1].labels.at(std::string(hub::kGpuProductLabel)), "T4");
  EXPECT_EQ(split[1][1].allocatable.get(hub::kCpu), 64000);
}

TEST(OpenbSplit, TooFewLargeNodesIsAnError) {
  EXPECT_THROW(split_openb_nodes(openb_list(), {8, 8}, {32, 1}), std::invalid_argument);
}

}  // namespace
}  // namespace gantry::sim
