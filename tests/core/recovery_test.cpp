// A restarted hub takes back the jobs its clusters still run, or finished
// while it was away, instead of starting them again.
#include <gtest/gtest.h>

#include "hub/scheduler.hpp"
#include "tests/core/core_harness.hpp"

namespace gantry::hub {
namespace {

using testing::nodes;

constexpr DispatchId kThisHubsFirstId = DispatchId{2} << 40;

class RecoveryTest : public testing::CoreHarness {
 protected:
  RecoveryTest() : CoreHarness(options()) {
    now = 5'000;
    west = add_cluster("west", 2, 8);
  }
  static SchedulerOptions options() {
    SchedulerOptions options;
    options.first_dispatch_id = kThisHubsFirstId + 1;
    return options;
  }
  JobId submit(const std::string& name, std::int32_t replicas, std::int64_t gpus_each) {
    JobRequest request;
    request.name = name;
    request.gang = make_uniform_gang(replicas, testing::gpus(gpus_each));
    request.gang.tasks[0].name = "worker";
    return CoreHarness::submit(std::move(request));
  }

  ClusterIndex west = 0;
};

TEST_F(RecoveryTest, RunningJobIsTakenBackOnItsNodesAndNotPlacedAgain) {
  const JobId id = submit("long", 2, 8);
  const DispatchId old_id = 7;
  ASSERT_TRUE(core.from_earlier_hub(old_id));
  // The agent's report already counts the two replicas.
  std::vector<NodeSpec> busy = nodes(2, 8, 64, "west");
  for (NodeSpec& node : busy) node.allocated = testing::gpus(8);
  core.report_usage(west, busy, {old_id});
  ASSERT_TRUE(core.adopt(id, west, old_id, {{"worker", "west-0"}, {"worker", "west-1"}}, now));

  EXPECT_EQ(core.job(id).phase, JobPhase::kRunning);
  EXPECT_EQ(core.job(id).dispatch, old_id);
  EXPECT_EQ(core.queues().node(*core.find_queue("default")).allocated.gpus(), 16);
  EXPECT_EQ(core.cluster(west).total_free().gpus(), 0);  // counted once, by the report
  EXPECT_TRUE(core.schedule(now).empty());
  EXPECT_EQ(core.pending_count(), 0u);

  // It ends through the usual path, under the old id.
  core.finished(old_id, JobPhase::kCompleted, "", now + 1);
  EXPECT_EQ(core.job(id).phase, JobPhase::kCompleted);
  EXPECT_EQ(core.queues().node(*core.find_queue("default")).allocated.gpus(), 0);
}

TEST_F(RecoveryTest, NewDispatchIdsNeverRepeatAnEarlierHubs) {
  submit("fresh", 1, 1);
  const auto& decisions = core.schedule(now);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_FALSE(core.from_earlier_hub(decisions[0].dispatch));
  EXPECT_GT(decisions[0].dispatch, kThisHubsFirstId);
}

TEST_F(RecoveryTest, AdoptionThatDoesNotMatchTheJobChangesNothing) {
  const JobId id = submit("gang", 2, 8);
  EXPECT_FALSE(core.adopt(id, west, 7, {{"worker", "west-0"}}, now)) << "fewer than minAvailable";
  EXPECT_FALSE(core.adopt(id, west, 7, {{"worker", "west-0"}, {"worker", "east-9"}}, now))
      << "unknown node";
  EXPECT_FALSE(core.adopt(id, west, 7, {{"worker", "west-0"}, {"ps", "west-1"}}, now))
      << "unknown task";
  EXPECT_EQ(core.job(id).phase, JobPhase::kPending);
  EXPECT_EQ(core.pending_count(), 1u);
  ASSERT_TRUE(core.adopt(id, west, 7, {{"worker", "west-0"}, {"worker", "west-1"}}, now));
  EXPECT_FALSE(core.adopt(id, west, 8, {{"worker", "west-0"}, {"worker", "west-1"}}, now))
      << "not pending";
  const JobId other = submit("other", 1, 1);
  EXPECT_FALSE(core.adopt(other, west, 7, {{"worker", "west-0"}}, now)) << "id in use";
}

TEST_F(RecoveryTest, JobThatEndedWhileTheHubWasAwayLeavesItsQueue) {
  const JobId id = submit("quick", 1, 1);
  core.ended_while_away(id, west, JobPhase::kCompleted, "", now);
  EXPECT_EQ(core.job(id).phase, JobPhase::kCompleted);
  EXPECT_EQ(core.job(id).cluster, west);
  EXPECT_EQ(core.pending_count(), 0u);
  EXPECT_TRUE(core.schedule(now).empty());
}

}  // namespace
}  // namespace gantry::hub
