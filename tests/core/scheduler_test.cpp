#include "hub/scheduler.hpp"

#include <gtest/gtest.h>

#include "hub/field_error.hpp"
#include "tests/core/core_harness.hpp"

namespace gantry::hub {
namespace {

using testing::gpus;
using testing::nodes;

class SchedulerTest : public testing::CoreHarness {
 protected:
  JobId submit_gpus(const std::string& name, std::int64_t gpu_count,
                    std::vector<std::string> pinned = {}) {
    JobRequest request = testing::gpu_job(name, gpu_count);
    request.allowed_clusters = std::move(pinned);
    return submit(std::move(request));
  }
};

TEST_F(SchedulerTest, PlacesJobOnTheOnlyClusterThatFits) {
  add_cluster("small", nodes(4, 4));
  const ClusterIndex big = add_cluster("gpu8", nodes(2, 8));
  submit_gpus("needs-eight", 8);
  ASSERT_EQ(scheduled_names(), std::vector<std::string>{"needs-eight"});
  EXPECT_EQ(job("needs-eight").cluster, big);
  EXPECT_EQ(job("needs-eight").phase, JobPhase::kDispatched);
}

TEST_F(SchedulerTest, JobLargerThanEveryClusterStaysPendingNamingTheShortfall) {
  add_cluster("a", nodes(2, 8));
  add_cluster("b", nodes(1, 8));
  submit_gpus("huge", 64);
  EXPECT_TRUE(scheduled_names().empty());
  const Job& huge = job("huge");
  EXPECT_EQ(huge.phase, JobPhase::kPending);
  EXPECT_EQ(huge.reason.kind, PendingReason::Kind::kExceedsEveryCluster);
  const std::string text = core.reason_text(huge);
  EXPECT_NE(text.find("64 nvidia.com/gpu"), std::string::npos) << text;
  EXPECT_NE(text.find("16 nvidia.com/gpu"), std::string::npos) << text;
  EXPECT_NE(text.find("(a)"), std::string::npos) << text;
}

TEST_F(SchedulerTest, NotEnoughCapacityNamesWhatEveryClusterHasFree) {
  add_cluster("east", nodes(2, 8));
  add_cluster("west", nodes(1, 4));
  submit_gpus("fill-east", 8, {"east"});
  submit_gpus("fill-east-2", 4, {"east"});
  submit_gpus("fill-west", 2, {"west"});
  ASSERT_EQ(scheduled_names().size(), 3u);
  submit_gpus("needs-6", 6);
  EXPECT_TRUE(scheduled_names().empty());
  EXPECT_EQ(job("needs-6").reason.kind, PendingReason::Kind::kInsufficientCapacity);
  const std::string text = core.reason_text(job("needs-6"));
  EXPECT_NE(
      text.find("needs 6 nvidia.com/gpu; the most free in one cluster is 4 nvidia.com/gpu (east); "
                "free now per cluster: east 4 nvidia.com/gpu, west 2 nvidia.com/gpu"),
      std::string::npos)
      << text;
}

TEST_F(SchedulerTest, StrictFifoHeadBlocksBestEffortSkips) {
  add_cluster("c", nodes(1, 8));
  submit_gpus("first", 6);
  submit_gpus("big", 8);
  submit_gpus("small", 2);
  core.set_queue_strategy(*core.find_queue("default"), QueueStrategy::kStrictFifo);
  EXPECT_EQ(scheduled_names(), std::vector<std::string>{"first"});
  EXPECT_NE(core.reason_text(job("small"))
                .find("waiting behind the head of queue default (strict FIFO): big"),
            std::string::npos)
      << core.reason_text(job("small"));
  core.set_queue_strategy(*core.find_queue("default"), QueueStrategy::kBestEffortFifo);
  EXPECT_EQ(scheduled_names(), std::vector<std::string>{"small"});
  EXPECT_EQ(job("big").reason.kind, PendingReason::Kind::kInsufficientCapacity);
}

TEST_F(SchedulerTest, HigherPriorityGoesFirst) {
  add_cluster("c", nodes(1, 8));
  submit_gpus("old-low", 8);
  JobRequest urgent = testing::gpu_job("new-high", 8);
  urgent.priority = 1000;
  submit(std::move(urgent));
  EXPECT_EQ(scheduled_names(), std::vector<std::string>{"new-high"});
}

TEST_F(SchedulerTest, FinishedJobFreesItsResources) {
  add_cluster("c", nodes(1, 8));
  submit_gpus("one", 8);
  submit_gpus("two", 8);
  ASSERT_EQ(scheduled_names(), std::vector<std::string>{"one"});
  admit("one");
  EXPECT_EQ(job("one").phase, JobPhase::kRunning);
  EXPECT_TRUE(scheduled_names().empty());
  core.finished(job("one").dispatch, JobPhase::kCompleted, "", now + 10);
  EXPECT_EQ(job("one").phase, JobPhase::kCompleted);
  EXPECT_EQ(scheduled_names(), std::vector<std::string>{"two"});
}

// Backoff doubles with each refusal by the same cluster (1 s, 2 s, ...).
TEST_F(SchedulerTest, RejectedJobIsRequeuedAndSkipsThatClusterUntilItsBackoffRunsOut) {
  const ClusterIndex c = add_cluster("c", nodes(1, 8));
  submit_gpus("job", 8);
  ASSERT_EQ(scheduled_names().size(), 1u);
  core.rejected(job("job").dispatch, "node-0 has 0 free nvidia.com/gpu", now);
  EXPECT_EQ(job("job").phase, JobPhase::kPending);
  EXPECT_EQ(job("job").requeues, 1);
  EXPECT_NE(core.reason_text(job("job")).find("rejected by cluster c"), std::string::npos);
  EXPECT_EQ(core.backed_off_until(*core.find_job("job"), c), now + 1'000);
  EXPECT_TRUE(scheduled_names().empty()) << "no redispatch loop to the cluster that refused";
  core.report_usage(c, nodes(1, 8), {});
  now += 999;
  EXPECT_TRUE(scheduled_names().empty()) << "a new report does not end the backoff";
  now += 1;
  ASSERT_EQ(scheduled_names().size(), 1u);
  core.rejected(job("job").dispatch, "still no room", now);
  EXPECT_EQ(core.backed_off_until(*core.find_job("job"), c), now + 2'000) << "doubled";
  now += 1'999;
  EXPECT_TRUE(scheduled_names().empty());
  now += 1;
  EXPECT_EQ(scheduled_names().size(), 1u);
}

TEST_F(SchedulerTest, ReservationHeldUntilTheAgentAccountsForIt) {
  const ClusterIndex c = add_cluster("c", nodes(1, 8));
  submit_gpus("a", 8);
  ASSERT_EQ(scheduled_names().size(), 1u);
  const DispatchId dispatch = job("a").dispatch;
  core.report_usage(c, nodes(1, 8), {});  // a report from before the agent started it
  EXPECT_EQ(core.cluster(c).total_free().gpus(), 0) << "the hub's hold stays on top of the report";
  std::vector<NodeSpec> busy = nodes(1, 8);
  busy[0].allocated = gpus(8);
  core.report_usage(c, busy, {dispatch});
  EXPECT_EQ(core.cluster(c).total_free().gpus(), 0) << "counted once, not twice";
  EXPECT_FALSE(core.find_dispatch(dispatch)->parts.front().awaiting_report);
}

TEST_F(SchedulerTest, LostClusterRequeuesItsJobs) {
  const ClusterIndex c = add_cluster("c", nodes(1, 8));
  add_cluster("d", nodes(1, 4));
  submit_gpus("a", 8);
  ASSERT_EQ(scheduled_names().size(), 1u);
  admit("a");
  core.set_cluster_ready(c, false);
  EXPECT_EQ(job("a").phase, JobPhase::kRunning) << "not ready is not lost: it keeps its place";
  const std::vector<WithdrawnDispatch> requeued = core.cluster_lost(c, now);
  ASSERT_EQ(requeued.size(), 1u);
  EXPECT_EQ(requeued[0].clusters, std::vector<ClusterIndex>{c});
  EXPECT_EQ(job("a").phase, JobPhase::kPending);
  EXPECT_EQ(job("a").reason.kind, PendingReason::Kind::kClusterLost);
  EXPECT_TRUE(scheduled_names().empty());
  EXPECT_EQ(job("a").reason.kind, PendingReason::Kind::kExceedsEveryCluster);
}

TEST_F(SchedulerTest, PinnedJobOnlyRunsWhereAllowed) {
  add_cluster("east", nodes(1, 8));
  submit_gpus("west-only", 1, {"west"});
  EXPECT_TRUE(scheduled_names().empty());
  EXPECT_EQ(job("west-only").reason.kind, PendingReason::Kind::kNoAllowedCluster);
  add_cluster("west", nodes(1, 8));
  EXPECT_EQ(scheduled_names(), std::vector<std::string>{"west-only"});
}

TEST_F(SchedulerTest, CancelPendingAndRunning) {
  add_cluster("c", nodes(1, 8));
  submit_gpus("runs", 8);
  submit_gpus("waits", 8);
  ASSERT_EQ(scheduled_names().size(), 1u);
  const DispatchId dispatch = job("runs").dispatch;
  EXPECT_EQ(core.cancel("waits", now), std::nullopt);
  EXPECT_EQ(job("waits").phase, JobPhase::kAborted);
  EXPECT_EQ(core.cancel("runs", now), dispatch);
  EXPECT_EQ(job("runs").phase, JobPhase::kAborted);
  EXPECT_EQ(core.pending_count(), 0u);
  EXPECT_THROW(core.cancel("nobody", now), std::out_of_range);
}

TEST_F(SchedulerTest, DuplicateOrMalformedJobsAreRefusedNamingTheField) {
  submit_gpus("same", 1);
  try {
    submit_gpus("same", 1);
    FAIL();
  } catch (const FieldError& e) {
    EXPECT_EQ(e.field(), "metadata.name");
    EXPECT_EQ(e.value(), "same");
  }
  JobRequest bad;
  bad.name = "bad";
  bad.gang = make_uniform_gang(2, gpus(1));
  bad.gang.min_available = 3;
  EXPECT_THROW(submit(std::move(bad)), FieldError);
}

TEST_F(SchedulerTest, GangThatDoesNotFitNodesSaysHowCloseItCame) {
  std::vector<NodeSpec> specs = nodes(3, 8);
  add_cluster("c", specs);
  submit_gpus("fill", 6);
  ASSERT_EQ(scheduled_names().size(), 1u);
  submit_gpus("three-nodes", 24);  // 18 GPUs free in total: not enough anywhere
  EXPECT_TRUE(scheduled_names().empty());
  EXPECT_EQ(job("three-nodes").reason.kind, PendingReason::Kind::kInsufficientCapacity);
  JobRequest sixes;  // 3 x 6 GPUs = 18 = the free total, but only two nodes have 6 free
  sixes.name = "three-sixes";
  sixes.gang = make_uniform_gang(3, gpus(6));
  submit(std::move(sixes));
  EXPECT_TRUE(scheduled_names().empty());
  const std::string text = core.reason_text(job("three-sixes"));
  EXPECT_EQ(job("three-sixes").reason.kind, PendingReason::Kind::kGangDoesNotFitNodes);
  EXPECT_NE(text.find("needs 3 replicas"), std::string::npos) << text;
  EXPECT_NE(text.find("best cluster c fits 2"), std::string::npos) << text;
}

}  // namespace
}  // namespace gantry::hub
