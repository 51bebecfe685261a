// Elastic jobs in the core (minAvailable below the replica count): start with
// what fits, grow as capacity frees but never ahead of a pending gang, queues
// charged for what runs, a refused growth released, elastic replicas shrunk
// before any whole gang is evicted.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/core/core_harness.hpp"

namespace gantry::hub {
namespace {

using testing::gpus;

class ElasticTest : public testing::CoreHarness {
 protected:
  ElasticTest() : CoreHarness(options()) {}
  static SchedulerOptions options() {
    SchedulerOptions options;
    options.backoff_base_ms = 1'000;
    options.backoff_max_ms = 4'000;
    options.resize_answer_timeout_ms = 10'000;
    return options;
  }

  // `replicas` replicas of 8 GPUs, `min_available` of them needed to start.
  JobId submit_elastic(const std::string& name, std::int32_t replicas, std::int32_t min_available,
                       std::int32_t priority = 0) {
    JobRequest request;
    request.name = name;
    request.priority = priority;
    request.gang = make_uniform_gang(replicas, gpus(8));
    request.gang.min_available = min_available;
    return submit(std::move(request));
  }
  JobId submit_gang(const std::string& name, std::int64_t gpu_count, std::int32_t priority = 0) {
    JobRequest request = testing::gpu_job(name, gpu_count);
    request.priority = priority;
    return submit(std::move(request));
  }

  // One pass; every dispatch admitted at once; returns the decisions by kind.
  struct Decided {
    std::vector<std::string> dispatched, evicted, resized;
  };
  Decided run_pass() {
    Decided out;
    const std::vector<Decision> decisions = core.schedule(now);
    for (const Decision& d : decisions) {
      const std::string& name = core.job(d.job).name;
      switch (d.kind) {
        case Decision::Kind::kDispatch:
          out.dispatched.push_back(name);
          core.admitted(d.dispatch, now);
          break;
        case Decision::Kind::kEvict:
          out.evicted.push_back(name);
          break;
        case Decision::Kind::kResize:
          out.resized.push_back(name);
          break;
      }
    }
    return out;
  }
  const Dispatch& dispatch_of(const std::string& name) {
    return *core.find_dispatch(job(name).dispatch);
  }
  using Names = std::vector<std::string>;
};

TEST_F(ElasticTest, StartsWithTheReplicasThatFitWhenOnlyMinAvailableFit) {
  add_cluster("a", 4, 8);
  submit_gang("holder", 16);
  run_pass();
  submit_elastic("elastic", 4, 2);
  EXPECT_EQ(run_pass().dispatched, Names{"elastic"});
  EXPECT_EQ(job("elastic").phase, JobPhase::kRunning);
  EXPECT_EQ(dispatch_of("elastic").world_size, 2);
  EXPECT_EQ(allocated_gpus("default"), 32);  // 16 for the holder, 16 for what runs of elastic
}

TEST_F(ElasticTest, DoesNotStartBelowMinAvailable) {
  add_cluster("a", 4, 8);
  submit_gang("holder", 24);
  run_pass();
  submit_elastic("elastic", 4, 2);
  EXPECT_TRUE(run_pass().dispatched.empty());
  EXPECT_EQ(job("elastic").phase, JobPhase::kPending);
}

TEST_F(ElasticTest, GrowsAsCapacityFreesAndIsChargedForWhatRuns) {
  const ClusterIndex a = add_cluster("a", 4, 8);
  submit_gang("holder", 16);
  run_pass();
  submit_elastic("elastic", 4, 2);
  run_pass();
  finish("holder");
  EXPECT_EQ(run_pass().resized, Names{"elastic"});
  const Dispatch& grown = dispatch_of("elastic");
  EXPECT_EQ(grown.growing.size(), 2u);
  EXPECT_EQ(grown.elastic_epoch, 1u);
  EXPECT_EQ(allocated_gpus("default"), 32);  // charged while its agent decides
  EXPECT_TRUE(core.resize_answered(grown.id, a, 1, true, now));
  EXPECT_EQ(dispatch_of("elastic").world_size, 4);
  EXPECT_EQ(dispatch_of("elastic").parts[0].task_replicas, std::vector<std::int32_t>{4});
  EXPECT_EQ(allocated_gpus("default"), 32);
  EXPECT_TRUE(run_pass().resized.empty());  // at its full count
}

TEST_F(ElasticTest, NeverGrowsAheadOfAPendingGang) {
  add_cluster("a", 4, 8);
  submit_gang("holder", 16);
  run_pass();
  submit_elastic("elastic", 4, 2);
  run_pass();
  submit_gang("waiter", 16);  // does not fit while the holder runs
  EXPECT_TRUE(run_pass().dispatched.empty());
  finish("holder");
  const Decided decided = run_pass();
  EXPECT_EQ(decided.dispatched, Names{"waiter"});
  EXPECT_TRUE(decided.resized.empty());
  EXPECT_EQ(dispatch_of("elastic").world_size, 2);
}

TEST_F(ElasticTest, ARefusedGrowthIsReleasedAndBacksOff) {
  const ClusterIndex a = add_cluster("a", 4, 8);
  submit_gang("holder", 16);
  run_pass();
  submit_elastic("elastic", 4, 2);
  run_pass();
  finish("holder");
  run_pass();
  const DispatchId id = job("elastic").dispatch;
  EXPECT_TRUE(core.resize_answered(id, a, 1, false, now));
  EXPECT_EQ(dispatch_of("elastic").world_size, 2);
  EXPECT_TRUE(dispatch_of("elastic").growing.empty());
  EXPECT_EQ(dispatch_of("elastic").elastic_epoch, 0u);
  EXPECT_EQ(allocated_gpus("default"), 16);
  EXPECT_EQ(core.allocated_on(a).gpus(), 16);
  EXPECT_TRUE(run_pass().resized.empty());  // backed off
  now += 1'000;
  EXPECT_EQ(run_pass().resized, Names{"elastic"});
}

TEST_F(ElasticTest, AnUnansweredGrowthIsReleasedAfterItsTimeout) {
  const ClusterIndex a = add_cluster("a", 4, 8);
  submit_gang("holder", 16);
  run_pass();
  submit_elastic("elastic", 4, 2);
  run_pass();
  finish("holder");
  run_pass();
  now += 10'000;
  run_pass();
  EXPECT_TRUE(dispatch_of("elastic").growing.empty());
  EXPECT_EQ(allocated_gpus("default"), 16);
  EXPECT_EQ(core.allocated_on(a).gpus(), 16);
}

TEST_F(ElasticTest, ShrinksElasticReplicasBeforeEvictingAWholeGang) {
  add_cluster("a", 6, 8);
  submit_gang("whole", 16, -1);  // lowest priority: a whole-gang eviction would take it first
  submit_elastic("elastic", 4, 2);
  run_pass();
  ASSERT_EQ(dispatch_of("elastic").world_size, 4);
  submit_gang("urgent", 16, 1);
  const Decided decided = run_pass();
  EXPECT_EQ(decided.dispatched, Names{"urgent"});
  EXPECT_EQ(decided.resized, Names{"elastic"});
  EXPECT_TRUE(decided.evicted.empty());
  EXPECT_EQ(job("whole").phase, JobPhase::kRunning);
  const Dispatch& shrunk = dispatch_of("elastic");
  EXPECT_EQ(shrunk.world_size, 2);
  EXPECT_EQ(shrunk.parts[0].task_replicas, std::vector<std::int32_t>{2});
  EXPECT_EQ(shrunk.elastic_epoch, 1u);
  EXPECT_EQ(allocated_gpus("default"), 16 + 16 + 16);
}

TEST_F(ElasticTest, NeverShrinksBelowMinAvailable) {
  add_cluster("a", 4, 8);
  submit_elastic("elastic", 4, 3);
  run_pass();
  submit_gang("urgent", 16, 1);
  const Decided decided = run_pass();
  EXPECT_EQ(decided.evicted, Names{"elastic"});  // one spare replica is not enough: whole gang
  EXPECT_TRUE(decided.resized.empty());
}

TEST_F(ElasticTest, AQueueCapabilityLimitsTheStartAndTheGrowth) {
  add_cluster("a", 4, 8);
  QueueSpec capped;
  capped.name = "capped";
  capped.capability.set(kGpu, 24 * kMilli);
  apply_queue(capped);
  JobRequest request;
  request.name = "elastic";
  request.queue = "capped";
  request.gang = make_uniform_gang(4, gpus(8));
  request.gang.min_available = 2;
  submit(std::move(request));
  run_pass();
  EXPECT_EQ(dispatch_of("elastic").world_size, 3);
  EXPECT_TRUE(run_pass().resized.empty());
  EXPECT_EQ(allocated_gpus("capped"), 24);
}

}  // namespace
}  // namespace gantry::hub
