// Deserved shares water-filled by demand (Volcano's proportion plugin), on the
// bare algorithm, on the queue tree and through scheduling passes.
#include "hub/water_fill.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "hub/queue_tree.hpp"
#include "hub/scheduler.hpp"
#include "tests/core/core_fixtures.hpp"
#include "tests/core/core_harness.hpp"

namespace gantry::hub {
namespace {

using testing::gpus;

TEST(WaterFill, SharesByWeightWhenEveryoneWantsMore) {
  std::vector<WaterFillShare> shares{{1, 1000, 0}, {3, 1000, 0}};
  EXPECT_EQ(water_fill(shares, 400), 0);
  EXPECT_EQ(shares[0].share, 100);
  EXPECT_EQ(shares[1].share, 300);
}

TEST(WaterFill, WhatOneDoesNotNeedGoesToTheOthersByWeight) {
  // 1:1:2 of 400 would be 100/100/200; the first needs 10, so the 90 it
  // leaves is shared 1:2 again, and so on until it is spent.
  std::vector<WaterFillShare> shares{{1, 10, 0}, {1, 1000, 0}, {2, 1000, 0}};
  EXPECT_EQ(water_fill(shares, 400), 0);
  EXPECT_EQ(shares[0].share, 10);
  EXPECT_EQ(shares[1].share, 130);
  EXPECT_EQ(shares[2].share, 260);
}

TEST(WaterFill, ReturnsWhatNoOneWants) {
  std::vector<WaterFillShare> shares{{1, 10, 0}, {5, 20, 0}};
  EXPECT_EQ(water_fill(shares, 100), 70);
  EXPECT_EQ(shares[0].share, 10);
  EXPECT_EQ(shares[1].share, 20);
}

TEST(WaterFill, LargeQuantitiesDoNotOverflow) {
  const std::int64_t pool = 4'000'000'000'000'000;  // 4 PB of memory in milli-units
  std::vector<WaterFillShare> shares{{65535, pool, 0}, {1, pool, 0}};
  EXPECT_EQ(water_fill(shares, pool), 0);
  EXPECT_EQ(shares[0].share + shares[1].share, pool);
  EXPECT_GT(shares[0].share, shares[1].share * 65000);
}

QueueSpec weighted(const std::string& name, std::int32_t weight) {
  QueueSpec spec;
  spec.name = name;
  spec.weight = weight;
  return spec;
}

std::int64_t deserved_gpus(const QueueTree& tree, const std::string& name) {
  return tree.node(*tree.find(name)).deserved.gpus();
}

void wait_for(QueueTree& tree, const std::string& queue, std::int64_t gpu_count, int job) {
  tree.enqueue(*tree.find(queue), PendingKey{0, static_cast<std::uint64_t>(job), 0},
               gpus(gpu_count));
}

TEST(QueueWaterFill, AnIdleDefaultQueueDeservesNothingWhileOthersNeedThePool) {
  QueueTree tree;
  tree.apply(weighted("a", 1));
  tree.apply(weighted("b", 3));
  wait_for(tree, "a", 60, 1);
  wait_for(tree, "b", 60, 2);
  tree.refresh(gpus(40));
  EXPECT_EQ(deserved_gpus(tree, "default"), 0);
  EXPECT_EQ(deserved_gpus(tree, "a"), 10);
  EXPECT_EQ(deserved_gpus(tree, "b"), 30);
}

TEST(QueueWaterFill, AQueueAskingLessThanItsShareLeavesTheRestToOthers) {
  QueueTree tree;
  tree.apply(weighted("a", 1));
  tree.apply(weighted("b", 1));
  tree.add_allocation(*tree.find("a"), gpus(2));  // demand counts what runs...
  wait_for(tree, "a", 2, 1);                      // ...and what waits: 4 in all
  wait_for(tree, "b", 100, 2);
  tree.refresh(gpus(40));
  EXPECT_EQ(deserved_gpus(tree, "a"), 4);
  EXPECT_EQ(deserved_gpus(tree, "b"), 36);
}

TEST(QueueWaterFill, CapabilityCapsTheShareAndTheRestIsReshared) {
  QueueTree tree;
  QueueSpec capped = weighted("a", 3);
  capped.capability.set(kGpu, 5 * kMilli);
  tree.apply(capped);
  tree.apply(weighted("b", 1));
  wait_for(tree, "a", 100, 1);
  wait_for(tree, "b", 100, 2);
  tree.refresh(gpus(40));
  EXPECT_EQ(deserved_gpus(tree, "a"), 5);
  EXPECT_EQ(deserved_gpus(tree, "b"), 35);
}

TEST(QueueWaterFill, ExplicitDeservedAndGuaranteeAreKept) {
  QueueTree tree;
  QueueSpec fixed = weighted("fixed", 1);
  fixed.deserved.set(kGpu, 16 * kMilli);  // kept although it asks nothing
  tree.apply(fixed);
  QueueSpec promised = weighted("promised", 1);
  promised.guarantee.set(kGpu, 4 * kMilli);  // kept although it asks nothing
  tree.apply(promised);
  tree.apply(weighted("busy", 1));
  wait_for(tree, "busy", 100, 1);
  tree.refresh(gpus(40));
  EXPECT_EQ(deserved_gpus(tree, "fixed"), 16);
  EXPECT_EQ(deserved_gpus(tree, "promised"), 4);
  EXPECT_EQ(deserved_gpus(tree, "busy"), 20);
  EXPECT_EQ(deserved_gpus(tree, "default"), 0);
}

TEST(QueueWaterFill, WhatNoOneDemandsIsSpreadByWeight) {
  QueueTree tree;
  tree.apply(weighted("a", 1));
  tree.apply(weighted("b", 2));
  wait_for(tree, "a", 2, 1);
  tree.refresh(gpus(42));
  // a needs 2; the 40 no one asks for go 1:1:2 to default, a and b.
  EXPECT_EQ(deserved_gpus(tree, "default"), 10);
  EXPECT_EQ(deserved_gpus(tree, "a"), 12);
  EXPECT_EQ(deserved_gpus(tree, "b"), 20);
}

TEST(QueueWaterFill, ChildrenShareTheirParentsDemandFilledPart) {
  QueueTree tree;
  tree.apply(weighted("org", 1));
  QueueSpec team = weighted("team", 1);
  team.parent = "org";
  tree.apply(team);
  QueueSpec idle = weighted("idle", 1);
  idle.parent = "org";
  tree.apply(idle);
  wait_for(tree, "team", 100, 1);
  tree.refresh(gpus(40));
  EXPECT_EQ(deserved_gpus(tree, "org"), 40) << "default is idle";
  EXPECT_EQ(deserved_gpus(tree, "team"), 40) << "its idle sibling deserves nothing";
  EXPECT_EQ(deserved_gpus(tree, "idle"), 0);
}

TEST(QueueWaterFill, RootCapabilityCapsThePool) {
  QueueTree tree;
  QueueSpec root;
  root.name = "root";
  root.parent = "";
  root.capability.set(kGpu, 30 * kMilli);
  tree.apply(root);
  tree.apply(weighted("a", 1));
  wait_for(tree, "a", 100, 1);
  tree.refresh(gpus(40));
  EXPECT_EQ(deserved_gpus(tree, "a"), 30);
  QueueIndex capped = 0;
  ResourceId resource = 0;
  tree.add_allocation(*tree.find("a"), gpus(30));
  EXPECT_FALSE(tree.within_capability(*tree.find("a"), gpus(1), capped, resource));
  EXPECT_EQ(capped, kRootQueue);
}

class SaturatedPoolTest : public testing::CoreHarness {};

// The scenario, pass by pass: 1:3 of 40 GPUs, default idle.
TEST_F(SaturatedPoolTest, TwoSaturatingQueuesConvergeToTheirWeights) {
  add_cluster("c", 5, 8);
  for (const auto& [name, weight] : {std::pair{"light", 1}, std::pair{"heavy", 3}}) {
    apply_queue(weighted(name, weight));
    for (int i = 0; i < 60; ++i)
      submit(testing::gpu_job(std::string(name) + std::to_string(i), 1, name));
  }
  pass();
  EXPECT_EQ(allocated_gpus("light"), 10);
  EXPECT_EQ(allocated_gpus("heavy"), 30);
}

// Light fills the idle pool first; heavy arrives and reclaims toward 3/4.
TEST_F(SaturatedPoolTest, ALateQueueReclaimsUpToItsWaterFilledShare) {
  add_cluster("c", 5, 8);
  apply_queue(weighted("light", 1));
  apply_queue(weighted("heavy", 3));
  for (int i = 0; i < 60; ++i) submit(testing::gpu_job("l" + std::to_string(i), 1, "light"));
  pass();
  ASSERT_EQ(allocated_gpus("light"), 40);
  now += 1000;
  for (int i = 0; i < 60; ++i) submit(testing::gpu_job("h" + std::to_string(i), 1, "heavy"));
  for (int round = 0; round < 100 && allocated_gpus("heavy") < 30; ++round) {
    pass();
    now += 1000;
  }
  EXPECT_EQ(allocated_gpus("heavy"), 30);
  EXPECT_EQ(allocated_gpus("light"), 10);
}

}  // namespace
}  // namespace gantry::hub
