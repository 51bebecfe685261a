// The unschedulable check's answers on empty clusters, worked out by hand:
// whole 8-GPU nodes per replica, split parts as the core's planner takes them.
#include "sim/empty_pool_fit.hpp"

#include <gtest/gtest.h>

#include "hub/scheduler.hpp"
#include "sim/cluster_layout.hpp"

namespace gantry::sim {
namespace {

// Empty clusters of 2, 1 and 1 8-GPU nodes (32 GPUs), with the replay's options.
EmptyPoolFit pool_of_2_1_1(hub::SchedulerOptions options = {}) {
  EmptyPoolFit pool(options);
  hub::SchedulerCore core;
  for (const auto& [name, nodes] : {std::pair{"a", 2}, {"b", 1}, {"c", 1}}) {
    const hub::ClusterIndex index = core.add_cluster(name);
    core.report_usage(index, identical_gpu_nodes(name, nodes), {});
    core.set_cluster_ready(index, true);
    pool.add_cluster(core.cluster(index));
  }
  return pool;
}

TEST(EmptyPoolFit, OneClusterHoldsWhatFitsItsNodes) {
  EmptyPoolFit pool = pool_of_2_1_1();
  EXPECT_TRUE(pool.fits_cluster(0, 16, hub::make_gpu_gang(16, 8)));
  EXPECT_FALSE(pool.fits_cluster(1, 16, hub::make_gpu_gang(16, 8)));
  EXPECT_TRUE(pool.fits_some_cluster(16, hub::make_gpu_gang(16, 8)));
  EXPECT_FALSE(pool.fits_some_cluster(24, hub::make_gpu_gang(24, 8)));
}

// Fewest parts: the two-node cluster first, then one of the others.
TEST(EmptyPoolFit, SplitTakesTheFewestParts) {
  EmptyPoolFit pool = pool_of_2_1_1();
  EXPECT_EQ(pool.split_parts(hub::make_gpu_gang(24, 8)), 2u);
  EXPECT_EQ(pool.split_parts(hub::make_gpu_gang(32, 8)), 3u);
  EXPECT_EQ(pool.split_parts(hub::make_gpu_gang(40, 8)), 0u);  // 5 nodes; the pool has 4
  EXPECT_TRUE(pool.fits_split(32, hub::make_gpu_gang(32, 8)));
  EXPECT_FALSE(pool.fits_split(40, hub::make_gpu_gang(40, 8)));
}

TEST(EmptyPoolFit, SplitStopsAtTheCoresPartLimit) {
  hub::SchedulerOptions options;
  options.max_split_parts = 2;
  EmptyPoolFit pool = pool_of_2_1_1(options);
  EXPECT_EQ(pool.split_parts(hub::make_gpu_gang(24, 8)), 2u);
  EXPECT_EQ(pool.split_parts(hub::make_gpu_gang(32, 8)), 0u);
}

}  // namespace
}  // namespace gantry::sim
