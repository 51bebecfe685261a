#include "hub/placement.hpp"

#include <gtest/gtest.h>

#include "tests/core/core_fixtures.hpp"

namespace gantry::hub {
namespace {

using testing::gpus;
using testing::nodes;

ClusterState cluster_of(const std::vector<NodeSpec>& specs) {
  ClusterState cluster("c");
  cluster.set_nodes(specs);
  return cluster;
}

TEST(ClusterState, IndexesNodesByFreeGpus) {
  ClusterState cluster = cluster_of(nodes(3, 8));
  EXPECT_EQ(cluster.nodes_with_free_gpus(8).size(), 3u);
  cluster.take(1, gpus(3));
  EXPECT_EQ(cluster.nodes_with_free_gpus(8).size(), 2u);
  ASSERT_EQ(cluster.nodes_with_free_gpus(5).size(), 1u);
  EXPECT_EQ(cluster.nodes_with_free_gpus(5)[0], 1u);
  EXPECT_EQ(cluster.count_nodes_with_at_least(5), 3u);
  EXPECT_EQ(cluster.count_nodes_with_at_least(6), 2u);
  cluster.give(1, gpus(3));
  EXPECT_EQ(cluster.nodes_with_free_gpus(8).size(), 3u);
  EXPECT_EQ(cluster.total_free(), cluster.total_allocatable());
}

TEST(GangPlacer, PlacesWholeGangBestFit) {
  ClusterState cluster = cluster_of(nodes(2, 8));
  cluster.take(0, gpus(6));  // node-0 has 2 free, node-1 has 8
  GangPlacer placer;
  std::vector<NodeAssignment> out;
  const FitResult fit = placer.place(cluster, make_uniform_gang(1, gpus(2)), out);
  ASSERT_TRUE(fit.fits);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].node, 0u) << "best fit: the 2-GPU hole, not the empty node";
}

TEST(GangPlacer, AllOrNothing) {
  ClusterState cluster = cluster_of(nodes(3, 8));
  const ResourceVector before = cluster.total_free();
  GangPlacer placer;
  std::vector<NodeAssignment> out;
  const FitResult fit = placer.place(cluster, make_gpu_gang(32, 8), out);  // needs 4 whole nodes
  EXPECT_FALSE(fit.fits);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(cluster.total_free(), before) << "a failed gang leaves nothing taken";
  EXPECT_TRUE(placer.place(cluster, make_gpu_gang(24, 8), out).fits);
  EXPECT_EQ(out.size(), 3u);
  EXPECT_EQ(cluster.total_free().gpus(), 0);
}

TEST(GangPlacer, SeveralReplicasShareANode) {
  ClusterState cluster = cluster_of(nodes(1, 8));
  GangPlacer placer;
  std::vector<NodeAssignment> out;
  EXPECT_TRUE(placer.place(cluster, make_uniform_gang(2, gpus(4)), out).fits);
  EXPECT_FALSE(placer.check(cluster, make_uniform_gang(1, gpus(1))).fits);
}

TEST(GangPlacer, FragmentedCapacityDoesNotFit) {
  // 8 free GPUs in total, but only 2 per node: a 4-GPU replica cannot start.
  ClusterState cluster = cluster_of(nodes(4, 2));
  GangPlacer placer;
  EXPECT_FALSE(placer.check(cluster, make_uniform_gang(1, gpus(4))).fits);
  EXPECT_TRUE(placer.check(cluster, make_uniform_gang(4, gpus(2))).fits);
}

TEST(GangPlacer, CpuIsCheckedPerNode) {
  ClusterState cluster = cluster_of(nodes(2, 8, /*cpu=*/4));
  GangPlacer placer;
  EXPECT_FALSE(placer.check(cluster, make_uniform_gang(1, gpus(1, /*cpu=*/6))).fits);
  EXPECT_TRUE(placer.check(cluster, make_uniform_gang(2, gpus(1, 4))).fits);
}

TEST(GangPlacer, MinAvailableAllowsPartialGang) {
  ClusterState cluster = cluster_of(nodes(2, 8));
  GangShape elastic = make_uniform_gang(4, gpus(8));
  elastic.min_available = 2;
  GangPlacer placer;
  std::vector<NodeAssignment> out;
  const FitResult fit = placer.place(cluster, elastic, out);
  EXPECT_TRUE(fit.fits);
  EXPECT_EQ(fit.placed, 2);
  elastic.min_available = 3;
  ClusterState fresh = cluster_of(nodes(2, 8));
  EXPECT_FALSE(placer.check(fresh, elastic).fits);
}

TEST(GangPlacer, HonoursNodeSelector) {
  std::vector<NodeSpec> specs = nodes(1, 8, 64, "t4", {{std::string(kGpuProductLabel), "T4"}});
  for (auto& node : nodes(1, 8, 64, "a100", {{std::string(kGpuProductLabel), "A100"}}))
    specs.push_back(node);
  ClusterState cluster = cluster_of(specs);
  GangShape gang = make_uniform_gang(1, gpus(8));
  gang.tasks[0].node_selector = {{std::string(kGpuProductLabel), "A100"}};
  GangPlacer placer;
  std::vector<NodeAssignment> out;
  ASSERT_TRUE(placer.place(cluster, gang, out).fits);
  EXPECT_EQ(cluster.node(out[0].node).name, "a100-0");
  EXPECT_FALSE(placer.check(cluster, gang).fits) << "the only A100 node is full";
}

TEST(GangPlacer, MixedTasksLargestFirst) {
  ClusterState cluster = cluster_of(nodes(2, 8));
  GangShape gang;
  gang.tasks.push_back(TaskShape{"ps", 1, gpus(0, 2), {}});
  gang.tasks.push_back(TaskShape{"worker", 2, gpus(8), {}});
  gang.min_available = 3;
  GangPlacer placer;
  std::vector<NodeAssignment> out;
  ASSERT_TRUE(placer.place(cluster, gang, out).fits);
  EXPECT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].task, 1u) << "8-GPU workers are placed before the CPU-only ps";
}

}  // namespace
}  // namespace gantry::hub
