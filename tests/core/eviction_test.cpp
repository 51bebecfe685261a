// Eviction plans, directly: a victim the gang does not need keeps running,
// and eviction searches are bounded per pass.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/core/core_harness.hpp"

namespace gantry::hub {
namespace {

using Names = std::vector<std::string>;

JobRequest prioritized(std::string name, std::int64_t gpu_count, std::int32_t priority,
                       std::string queue = "default") {
  JobRequest request = testing::gpu_job(std::move(name), gpu_count, std::move(queue));
  request.priority = priority;
  return request;
}

class VictimPruningTest : public testing::CoreHarness {};

// Eviction order is lowest priority first: `x` (4 GPUs beside `z`) is released
// before `y` (a whole node), but the gang fits once `y` alone is gone, so `x`
// is given its room back and keeps running.
TEST_F(VictimPruningTest, AVictimTheGangDoesNotNeedKeepsRunning) {
  add_cluster("c", 2, 8);
  submit(prioritized("z", 4, 10));
  submit(prioritized("y", 8, 1));
  submit(prioritized("x", 4, 0));
  ASSERT_EQ(pass().dispatched.size(), 3u);
  ASSERT_EQ(job("x").cluster, job("z").cluster);

  submit(prioritized("big", 8, 5));
  const testing::PassNames second = pass();
  EXPECT_EQ(second.evicted, Names{"y"});
  EXPECT_EQ(second.dispatched, Names{"big"});
  EXPECT_EQ(job("x").phase, JobPhase::kRunning);
  EXPECT_EQ(job("z").phase, JobPhase::kRunning);
  EXPECT_EQ(job("y").phase, JobPhase::kPending);
  EXPECT_EQ(job("y").reason.kind, PendingReason::Kind::kPreempted);
}

SchedulerOptions searches_per_pass(std::uint32_t limit) {
  SchedulerOptions options;
  options.eviction_searches_per_pass = limit;
  return options;
}

// Two queues of equal weight, each running a low-priority job on one of two
// nodes; each then gets a high-priority job that can only start by preempting
// its own queue's job.
class EvictionSearchLimitTest : public testing::CoreHarness {
 protected:
  explicit EvictionSearchLimitTest(std::uint32_t limit = 1)
      : CoreHarness(searches_per_pass(limit)) {}

  void SetUp() override {
    add_cluster("c", 2, 8);
    for (const std::string name : {"q1", "q2"}) {
      QueueSpec spec;
      spec.name = name;
      apply_queue(spec);
    }
    submit(prioritized("low1", 8, 0, "q1"));
    submit(prioritized("low2", 8, 0, "q2"));
    ASSERT_EQ(pass().dispatched.size(), 2u);
    submit(prioritized("high1", 8, 5, "q1"));
    submit(prioritized("high2", 8, 5, "q2"));
  }
};

TEST_F(EvictionSearchLimitTest, TheQueueAfterTheLimitGetsNoEvictionUntilTheNextPass) {
  const testing::PassNames first = pass();
  EXPECT_EQ(first.evicted, Names{"low1"});
  EXPECT_EQ(first.dispatched, Names{"high1"});
  EXPECT_EQ(job("high2").phase, JobPhase::kPending) << "the second search is over the limit";
  EXPECT_EQ(job("low2").phase, JobPhase::kRunning);

  const testing::PassNames next = pass();
  EXPECT_EQ(next.evicted, Names{"low2"});
  EXPECT_EQ(next.dispatched, Names{"high2"});
}

class TwoEvictionSearchesTest : public EvictionSearchLimitTest {
 protected:
  TwoEvictionSearchesTest() : EvictionSearchLimitTest(2) {}
};

TEST_F(TwoEvictionSearchesTest, WithinTheLimitEveryQueueEvictsInOnePass) {
  const testing::PassNames first = pass();
  EXPECT_EQ(first.evicted, (Names{"low1", "low2"}));
  EXPECT_EQ(first.dispatched, (Names{"high1", "high2"}));
}

}  // namespace
}  // namespace gantry::hub
