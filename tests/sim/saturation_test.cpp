// Issue 4: two queues with weights 1:3 that both want more than the pool
// converge to a 1:3 split of its GPUs, each within 5% of its target, and stay
// there. Judged pass by pass on the core's decisions, never on wall time.
#include "sim/saturation.hpp"

#include <gtest/gtest.h>

#include <iostream>

namespace gantry::sim {
namespace {

constexpr double kTolerance = 0.05;
constexpr hub::TimeMs kMinute = 60'000;
constexpr hub::TimeMs kHour = 60 * kMinute;

// 16 nodes (128 GPUs): light (weight 1) should hold 32, heavy (weight 3) 96.
// Each queue has 2,000 jobs, far more than the pool holds over the run.
SaturationSetup one_to_three(std::vector<std::int64_t> heavy_sizes, std::int32_t heavy_arrives) {
  SaturationSetup setup;
  setup.nodes = 16;
  setup.passes = 200;
  SaturationQueue light;
  light.name = "light";
  light.jobs = 2000;
  SaturationQueue heavy;
  heavy.name = "heavy";
  heavy.weight = 3;
  heavy.jobs = 2000;
  heavy.job_gpus = std::move(heavy_sizes);
  heavy.arrival_pass = heavy_arrives;
  setup.queues = {light, heavy};
  return setup;
}

void expect_one_to_three_at_end(const SaturationRun& run) {
  EXPECT_EQ(run.held.back()[0], 32);
  EXPECT_EQ(run.held.back()[1], 96);
}

std::size_t total(const std::vector<std::size_t>& counts) {
  std::size_t sum = 0;
  for (std::size_t count : counts) sum += count;
  return sum;
}

TEST(FairShareSaturation, TargetsAreTheWeightedSplitOfThePool) {
  EXPECT_EQ(weighted_split(one_to_three({1}, 0)), (std::vector<double>{32, 96}));
}

// Both queues arrive together: the weighted-DRF pass alone gives 1:3 at once.
TEST(FairShareSaturation, ArrivingTogetherSplitsOneToThreeInTheFirstPass) {
  SaturationSetup setup = one_to_three({1, 2, 4, 8}, 0);
  setup.min_duration_ms = 100 * kHour;  // nothing finishes during the run
  setup.max_duration_ms = 200 * kHour;
  const SaturationRun run = run_saturation(setup);
  EXPECT_EQ(settled_from(run, weighted_split(setup), kTolerance), 0u);
  expect_one_to_three_at_end(run);
}

// Light has taken the whole pool before heavy arrives, and nothing finishes:
// only reclaim can move GPUs, a gang (of 1 to 8 GPUs) per pass.
TEST(FairShareSaturation, ReclaimConvergesToOneToThreeWhenNothingFinishes) {
  SaturationSetup setup = one_to_three({1, 2, 4, 8}, 5);
  setup.min_duration_ms = 100 * kHour;
  setup.max_duration_ms = 200 * kHour;
  const SaturationRun run = run_saturation(setup);
  ASSERT_EQ(run.held[4], (std::vector<std::int64_t>{128, 0})) << "light borrowed everything";
  const auto settled = settled_from(run, weighted_split(setup), kTolerance);
  ASSERT_TRUE(settled);
  std::cout << "[ figures  ] reclaim, nothing finishes: within 5% from pass " << *settled
            << " (heavy arrived at pass 5), " << total(run.evictions) << " evictions\n";
  EXPECT_GT(total(run.evictions), 0u);
  expect_one_to_three_at_end(run);
}

// Without reclaim, GPUs move only as light's jobs (10 to 60 minutes, a pass a
// minute) finish: slower, but the same split, with no eviction.
TEST(FairShareSaturation, CompletionsAloneConvergeWithoutReclaim) {
  SaturationSetup setup = one_to_three({1, 2, 4, 8}, 5);
  setup.reclaim = false;
  setup.min_duration_ms = 10 * kMinute;
  setup.max_duration_ms = 60 * kMinute;
  const SaturationRun run = run_saturation(setup);
  const auto settled = settled_from(run, weighted_split(setup), kTolerance);
  ASSERT_TRUE(settled);
  std::cout << "[ figures  ] no reclaim, 10-60 min jobs: within 5% from pass " << *settled << "\n";
  EXPECT_EQ(total(run.evictions), 0u);
  expect_one_to_three_at_end(run);
}

TEST(FairShareSaturation, SettledFromNeedsEveryLaterPassWithinTolerance) {
  SaturationRun run;
  run.held = {{100, 28}, {33, 95}, {40, 88}, {32, 96}, {32, 96}};
  EXPECT_EQ(settled_from(run, {32, 96}, kTolerance), 3u);
  run.held.push_back({31, 97});  // 31 is 3.1% below 32: still within 5%
  EXPECT_EQ(settled_from(run, {32, 96}, kTolerance), 3u);
  run.held.push_back({30, 98});  // 6.25% below
  EXPECT_FALSE(settled_from(run, {32, 96}, kTolerance));
}

TEST(FairShareSaturation, SameSetupSameRun) {
  SaturationSetup setup = one_to_three({1, 2, 4, 8}, 5);
  setup.min_duration_ms = 10 * kMinute;
  setup.max_duration_ms = 60 * kMinute;
  const SaturationRun first = run_saturation(setup);
  const SaturationRun second = run_saturation(setup);
  EXPECT_EQ(first.held, second.held);
  EXPECT_EQ(first.evictions, second.evictions);
}

}  // namespace
}  // namespace gantry::sim
