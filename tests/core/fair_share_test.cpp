// Queue capacity, DRF order, reclaim, preemption and starvation guards on the
// pure core, driven pass by pass with a paused clock.
#include <gtest/gtest.h>

#include "hub/field_error.hpp"
#include "hub/scheduler.hpp"
#include "tests/core/core_harness.hpp"

namespace gantry::hub {
namespace {

class FairShareTest : public testing::CoreHarness {
 protected:
  explicit FairShareTest(SchedulerOptions options = {}) : CoreHarness(std::move(options)) {}
  void add_queue(const std::string& name, std::int32_t weight, std::int64_t guarantee_gpus = 0,
                 std::int64_t capability_gpus = 0, bool reclaimable = true) {
    QueueSpec spec;
    spec.name = name;
    spec.weight = weight;
    spec.reclaimable = reclaimable;
    if (guarantee_gpus) spec.guarantee.set(kGpu, guarantee_gpus * kMilli);
    if (capability_gpus) spec.capability.set(kGpu, capability_gpus * kMilli);
    apply_queue(spec);
  }
  // Queues a and b share a 32-GPU cluster; a submits `runs` whole-node jobs
  // (a0, a1, ...) and borrows what b does not use. The caller runs the pass.
  void queue_a_borrows(int runs) {
    add_cluster("c", 4, 8);
    add_queue("a", 1);
    add_queue("b", 1);
    for (int i = 0; i < runs; ++i) submit("a" + std::to_string(i), "a", 8);
  }
  JobId submit(const std::string& name, const std::string& queue_name, std::int64_t gpu_count,
               std::int32_t priority = 0, std::int64_t sla_ms = -1) {
    JobRequest request = testing::gpu_job(name, gpu_count, queue_name);
    request.priority = priority;
    request.sla_waiting_ms = sla_ms;
    return CoreHarness::submit(std::move(request));
  }
};

TEST_F(FairShareTest, WeightedDrfSplitsASaturatedPool) {
  add_cluster("c", 2, 8);
  add_queue("light", 1);
  add_queue("heavy", 3);
  for (int i = 0; i < 20; ++i) {
    submit("l" + std::to_string(i), "light", 1);
    submit("h" + std::to_string(i), "heavy", 1);
  }
  pass();
  EXPECT_EQ(allocated_gpus("light"), 4);
  EXPECT_EQ(allocated_gpus("heavy"), 12);
}

TEST_F(FairShareTest, HigherPriorityQueueIsServedFirst) {
  add_cluster("c", 1, 8);
  add_queue("batch", 1);
  QueueSpec urgent;
  urgent.name = "urgent";
  urgent.priority = 10;
  apply_queue(urgent);
  submit("b", "batch", 8);
  submit("u", "urgent", 8);
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"u"});
}

TEST_F(FairShareTest, CapabilityIsAHardCapEvenWhenThePoolIsIdle) {
  add_cluster("c", 2, 8);
  add_queue("capped", 1, 0, 4);
  for (int i = 0; i < 6; ++i) submit("j" + std::to_string(i), "capped", 1);
  pass();
  EXPECT_EQ(allocated_gpus("capped"), 4);
  const std::string reason = core.reason_text(job("j4"));
  EXPECT_NE(reason.find("queue capped at capability: nvidia.com/gpu would reach 5 of 4"),
            std::string::npos)
      << reason;
}

TEST_F(FairShareTest, ReclaimTakesBackBorrowedCapacityWholeGangsNewestFirst) {
  add_cluster("c", 4, 8);  // 32 GPUs: default, a and b deserve a third each
  add_queue("a", 1);
  add_queue("b", 1);
  for (int i = 0; i < 4; ++i) submit("a" + std::to_string(i), "a", 8);
  EXPECT_EQ(pass().dispatched.size(), 4u) << "a borrows the whole idle pool";
  now += 1000;
  submit("b0", "b", 8);
  const auto [dispatched, evicted] = pass();
  EXPECT_EQ(dispatched, std::vector<std::string>{"b0"});
  EXPECT_EQ(evicted, std::vector<std::string>{"a3"}) << "one whole gang, the newest";
  EXPECT_EQ(job("a3").phase, JobPhase::kPending);
  EXPECT_EQ(job("a3").preemptions, 1);
  EXPECT_NE(core.reason_text(job("a3")).find("preempted on cluster c to make room for job b0"),
            std::string::npos);
  // a3 cannot come back while b is within its deserved share: no ping-pong.
  EXPECT_TRUE(pass().dispatched.empty());
}

// Reclaim leaves runs older than reclaim_spares_after_ms (1 h by default)
// alone, although they borrow as much as younger ones would.
TEST_F(FairShareTest, ReclaimSparesRunsOlderThanTheSpareAge) {
  queue_a_borrows(4);
  pass();
  now += 2 * 3'600'000;
  submit("b0", "b", 8);
  EXPECT_TRUE(pass().evicted.empty()) << "every run of a is two hours old";
  EXPECT_EQ(job("b0").phase, JobPhase::kPending);
  finish("a3");
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"b0"}) << "b gets the next free node";
}

TEST_F(FairShareTest, ReclaimTakesARunYoungerThanTheSpareAge) {
  queue_a_borrows(3);
  pass();
  now += 2 * 3'600'000;
  submit("a3", "a", 8);
  pass();
  now += 30 * 60'000;
  submit("b0", "b", 8);
  const auto [dispatched, evicted] = pass();
  EXPECT_EQ(evicted, std::vector<std::string>{"a3"}) << "the half-hour-old run";
  EXPECT_EQ(dispatched, std::vector<std::string>{"b0"});
}

// The starvation guard started a4 after it waited past its SLA: reclaim
// toward another queue's deserved share takes a younger-than-spare-age run
// that started in time (a3) instead, or a4's wait would start over.
TEST_F(FairShareTest, ReclaimSparesARunThatStartedPastItsSla) {
  add_cluster("c", 4, 8);
  add_queue("a", 1);
  add_queue("b", 1);
  constexpr std::int64_t kSla = 10 * 60'000;
  for (int i = 0; i < 5; ++i) submit("a" + std::to_string(i), "a", 8, 0, kSla);
  EXPECT_EQ(pass().dispatched.size(), 4u) << "a0..a3 start at once, a4 waits";
  now += 20 * 60'000;
  finish("a0");
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"a4"}) << "ten minutes past its SLA";
  now += 10 * 60'000;
  submit("b0", "b", 8);
  const auto [dispatched, evicted] = pass();
  EXPECT_EQ(evicted, std::vector<std::string>{"a3"}) << "a4 is newer, but it starved first";
  EXPECT_EQ(dispatched, std::vector<std::string>{"b0"});
  EXPECT_EQ(job("a4").phase, JobPhase::kRunning);
}

TEST_F(FairShareTest, ARunIsAgedFromItsCommitNotFromBeforeIt) {
  queue_a_borrows(4);
  EXPECT_EQ(scheduled_names().size(), 4u) << "placed, still being prepared";
  now += 2 * 3'600'000;
  submit("b0", "b", 8);
  EXPECT_EQ(pass().evicted, std::vector<std::string>{"a3"}) << "a gang not started is not old";
}

TEST_F(FairShareTest, TakingBackAGuaranteeEvictsRunsOfAnyAge) {
  add_cluster("c", 4, 8);
  add_queue("g", 1);
  add_queue("other", 1);
  for (int i = 0; i < 4; ++i) submit("o" + std::to_string(i), "other", 8);
  pass();
  now += 2 * 3'600'000;
  add_queue("g", 1, /*guarantee=*/8);  // raised while other holds the pool
  submit("g0", "g", 8);
  const auto [dispatched, evicted] = pass();
  EXPECT_EQ(evicted, std::vector<std::string>{"o3"}) << "a guarantee is a promise, old runs or not";
  EXPECT_EQ(dispatched, std::vector<std::string>{"g0"});
}

class FairShareAnyAgeTest : public FairShareTest {
 protected:
  static SchedulerOptions any_age() {
    SchedulerOptions options;
    options.reclaim_spares_after_ms = 0;
    return options;
  }
  FairShareAnyAgeTest() : FairShareTest(any_age()) {}
};

TEST_F(FairShareAnyAgeTest, ZeroSpareAgeReclaimsRunsOfAnyAge) {
  queue_a_borrows(4);
  pass();
  now += 48 * 3'600'000;
  submit("b0", "b", 8);
  EXPECT_EQ(pass().evicted, std::vector<std::string>{"a3"});
}

// min_runtime_ms: no eviction (reclaim, preemption or a guarantee taken
// back) takes a run committed less than that ago.
class MinRuntimeTest : public FairShareTest {
 protected:
  static constexpr TimeMs kMinRuntime = 60'000;
  static SchedulerOptions with_min_runtime() {
    SchedulerOptions options;
    options.min_runtime_ms = kMinRuntime;
    return options;
  }
  MinRuntimeTest() : FairShareTest(with_min_runtime()) {}
};

TEST_F(MinRuntimeTest, ReclaimWaitsUntilTheRunsHaveRunTheirMinimum) {
  queue_a_borrows(4);
  pass();
  now += kMinRuntime - 1;
  submit("b0", "b", 8);
  EXPECT_TRUE(pass().evicted.empty()) << "every run of a committed just under a minute ago";
  EXPECT_EQ(job("b0").phase, JobPhase::kPending);
  now += 1;
  const auto [dispatched, evicted] = pass();
  EXPECT_EQ(evicted, std::vector<std::string>{"a3"});
  EXPECT_EQ(dispatched, std::vector<std::string>{"b0"});
}

TEST_F(MinRuntimeTest, PreemptionAndGuaranteesWaitForItToo) {
  add_cluster("c", 1, 8);
  add_queue("g", 1);
  submit("low", "g", 8, /*priority=*/0);
  pass();
  submit("high", "g", 8, /*priority=*/10);
  EXPECT_TRUE(pass().evicted.empty()) << "preemption spares the fresh run";
  now += kMinRuntime;
  EXPECT_EQ(pass().evicted, std::vector<std::string>{"low"});

  add_queue("guaranteed", 1, /*guarantee=*/8);
  submit("g0", "guaranteed", 8);
  now += 1;
  EXPECT_TRUE(pass().evicted.empty()) << "'high' has just started: even a guarantee waits";
  now += kMinRuntime;
  EXPECT_EQ(pass().evicted, std::vector<std::string>{"high"});
}

TEST_F(MinRuntimeTest, AGangStillBeingPreparedIsNotSpared) {
  queue_a_borrows(4);
  EXPECT_EQ(scheduled_names().size(), 4u) << "placed, not committed";
  submit("b0", "b", 8);
  EXPECT_EQ(pass().evicted, std::vector<std::string>{"a3"}) << "nothing of it runs yet";
}

TEST_F(FairShareTest, NoReclaimFromNonReclaimableQueueOrBeyondDeserved) {
  add_cluster("c", 4, 8);
  add_queue("keeper", 1, 0, 0, /*reclaimable=*/false);
  add_queue("b", 1);
  for (int i = 0; i < 4; ++i) submit("k" + std::to_string(i), "keeper", 8);
  pass();
  submit("b0", "b", 8);
  EXPECT_TRUE(pass().evicted.empty());
  EXPECT_EQ(job("b0").phase, JobPhase::kPending);
}

TEST_F(FairShareTest, ReclaimOnlyForAQueueThatStaysWithinItsDeservedShare) {
  add_cluster("c", 4, 8);
  add_queue("a", 1);
  add_queue("b", 1);
  for (int i = 0; i < 4; ++i) submit("a" + std::to_string(i), "a", 8);
  pass();
  submit("b-big", "b", 24);  // more than b's third of the pool
  EXPECT_TRUE(pass().evicted.empty());
  EXPECT_EQ(allocated_gpus("a"), 32);
}

TEST_F(FairShareTest, PreemptionInsideAQueueByPriorityOnly) {
  add_cluster("c", 1, 8);
  submit("low", "default", 8, 0);
  pass();
  submit("same", "default", 8, 0);
  EXPECT_TRUE(pass().evicted.empty()) << "equal priority never preempts";
  submit("high", "default", 8, 100);
  const auto [dispatched, evicted] = pass();
  EXPECT_EQ(evicted, std::vector<std::string>{"low"});
  EXPECT_EQ(dispatched, std::vector<std::string>{"high"});
}

// PriorityClass preemptionPolicy: Never — first in line, but evicts no one.
TEST_F(FairShareTest, AJobThatMayNotPreemptWaitsForRoom) {
  add_cluster("c", 1, 8);
  submit("low", "default", 8, 0);
  pass();
  JobRequest polite = testing::gpu_job("polite", 8, "default");
  polite.priority = 100;
  polite.may_preempt = false;
  CoreHarness::submit(std::move(polite));
  EXPECT_TRUE(pass().evicted.empty());
  EXPECT_EQ(job("polite").phase, JobPhase::kPending);
  submit("eager", "default", 8, 100);
  EXPECT_EQ(pass().evicted, std::vector<std::string>{"low"}) << "the same priority may preempt";
}

TEST_F(FairShareTest, GuaranteeIsNeverLentAndIsThereWhenDemandAppears) {
  add_cluster("c", 4, 8);
  add_queue("guaranteed", 1, /*guarantee=*/8);
  add_queue("other", 1);
  for (int i = 0; i < 8; ++i) submit("o" + std::to_string(i), "other", 8);
  pass();
  EXPECT_EQ(allocated_gpus("other"), 24) << "8 GPUs stay promised to the guaranteed queue";
  EXPECT_NE(core.reason_text(job("o3")).find("guaranteed to other queues"), std::string::npos)
      << core.reason_text(job("o3"));
  submit("g0", "guaranteed", 8);
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"g0"}) << "within one pass of the demand";
}

TEST_F(FairShareTest, StarvingJobGetsNodesHeldAgainstSmallerJobs) {
  add_cluster("c", 2, 8);
  submit("small-0", "default", 4);
  pass();
  submit("big", "default", 16, 0, /*sla_ms=*/10'000);
  for (int i = 1; i < 4; ++i) submit("small-" + std::to_string(i), "default", 4);
  // Before the SLA, first-fit lets the small jobs in around the big one.
  EXPECT_EQ(pass().dispatched.size(), 3u);
  finish("small-0");
  finish("small-1");
  now += 20'000;
  submit("small-4", "default", 4);
  EXPECT_TRUE(pass().dispatched.empty()) << "the freed node is held for big";
  finish("small-2");
  finish("small-3");
  EXPECT_EQ(pass().dispatched, (std::vector<std::string>{"big"}));
}

TEST_F(FairShareTest, StarvingJobsAreServedInDeadlineOrderAndTheLaterOnesWaitForTheHeldNodes) {
  add_cluster("c", 2, 8);
  submit("running", "default", 16);
  pass();
  submit("first", "default", 16, 0, /*sla_ms=*/1'000);
  now += 500;
  submit("second", "default", 8, 0, /*sla_ms=*/1'000);
  now += 10'000;
  EXPECT_TRUE(pass().dispatched.empty());  // "first" holds both nodes; "second" cannot hold any
  finish("running");
  EXPECT_EQ(pass().dispatched, (std::vector<std::string>{"first"}))
      << "not second, though it is smaller";
  finish("first");
  EXPECT_EQ(pass().dispatched, (std::vector<std::string>{"second"}));
}

TEST_F(FairShareTest, StarvingJobWithNoReadyClusterSaysSo) {
  add_cluster("c", 1, 8);
  core.set_cluster_ready(*core.find_cluster("c"), false);
  submit("waiting", "default", 8, 0, /*sla_ms=*/1'000);
  now += 10'000;
  EXPECT_TRUE(pass().dispatched.empty());
  EXPECT_EQ(job("waiting").reason.kind, PendingReason::Kind::kNoReadyCluster);
}

TEST_F(FairShareTest, ClosedQueueRefusesNewJobsButRunsWhatItHas) {
  add_cluster("c", 1, 8);
  add_queue("q", 1);
  submit("before", "q", 8);
  QueueSpec closed;
  closed.name = "q";
  closed.open = false;
  apply_queue(closed);
  EXPECT_THROW(submit("after", "q", 1), FieldError);
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"before"});
}

}  // namespace
}  // namespace gantry::hub
