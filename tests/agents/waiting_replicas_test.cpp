// Replicas whose executor says when they run (Kubernetes pods stay Pending
// until a node takes them and their images are pulled): the part is Pending
// with the reason until every replica runs, its time limit counts from then,
// and a part that waits past pending_give_up_ms is stopped and handed back to
// the hub as a refused part.
#include <gtest/gtest.h>

#include "agents/agent_core.hpp"
#include "tests/agents/agent_test_support.hpp"

namespace gantry::agents {
namespace {

using testing::FakeExecutor;
using testing::make_prepare;
using testing::messages_of;
using testing::prepare_and_commit;

constexpr TimeMs kGiveUpMs = 60'000;

class WaitingReplicasTest : public ::testing::Test {
 protected:
  WaitingReplicasTest() { executor_.waits_to_run = true; }

  AgentCoreOptions options() const {
    AgentCoreOptions options;
    options.pending_give_up_ms = kGiveUpMs;
    return options;
  }

  // A committed 2-replica gang with a 10 s time limit.
  void commit_gang(TimeMs now) {
    protocol::Prepare prepare = make_prepare(1, "ddp", {{"worker", 2, 1}});
    prepare.time_limit_ms = 10'000;
    ASSERT_TRUE(prepare_and_commit(core_, prepare, now, out_));
    out_ = {};
  }

  protocol::StatusUpdate last_status() const {
    const auto updates = messages_of<protocol::StatusUpdate>(out_);
    EXPECT_FALSE(updates.empty());
    return updates.empty() ? protocol::StatusUpdate{} : updates.back();
  }

  FakeExecutor executor_;
  AgentCore core_{"east", testing::small_inventory(), executor_, options()};
  Outbox out_;
};

TEST_F(WaitingReplicasTest, APartIsPendingWithItsReasonUntilEveryReplicaRuns) {
  commit_gang(0);
  ASSERT_EQ(executor_.started.size(), 2u) << "both were handed to the executor";
  core_.on_progress({{ReplicaKey{1, 0}, false, "Unschedulable: 0/3 nodes are available"}}, 10,
                    out_);
  protocol::StatusUpdate status = last_status();
  EXPECT_EQ(status.phase, protocol::phase::kPending);
  EXPECT_EQ(status.message, "worker-0: Unschedulable: 0/3 nodes are available");
  EXPECT_EQ(status.tasks.at(0).pending, 2);

  out_ = {};
  core_.on_progress({{ReplicaKey{1, 0}, true}}, 20, out_);
  EXPECT_EQ(last_status().phase, protocol::phase::kPending) << "one of two runs";
  out_ = {};
  core_.on_progress({{ReplicaKey{1, 1}, true}}, 30, out_);
  status = last_status();
  EXPECT_EQ(status.phase, protocol::phase::kRunning);
  EXPECT_EQ(status.message, "");
  EXPECT_EQ(status.tasks.at(0).running, 2);
}

TEST_F(WaitingReplicasTest, TheTimeLimitCountsFromWhenEveryReplicaRuns) {
  commit_gang(0);
  EXPECT_FALSE(core_.next_time_limit()) << "nothing runs yet";
  core_.on_progress({{ReplicaKey{1, 0}, true}, {ReplicaKey{1, 1}, true}}, 5'000, out_);
  ASSERT_TRUE(core_.next_time_limit());
  EXPECT_EQ(*core_.next_time_limit(), 15'000);
  EXPECT_FALSE(core_.next_give_up()) << "it runs: nothing to give up";
}

TEST_F(WaitingReplicasTest, APartStillWaitingAtItsDeadlineIsStoppedAndRefusedToTheHub) {
  commit_gang(0);
  core_.on_progress({{ReplicaKey{1, 1}, false, "ErrImagePull"}}, 10, out_);
  ASSERT_TRUE(core_.next_give_up());
  EXPECT_EQ(*core_.next_give_up(), kGiveUpMs);
  out_ = {};
  core_.give_up_waiting(kGiveUpMs - 1, out_);
  EXPECT_TRUE(out_.messages.empty()) << "not yet";

  core_.give_up_waiting(kGiveUpMs, out_);
  const auto refused = messages_of<protocol::Reject>(out_);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].dispatch_id, 1u);
  EXPECT_EQ(refused[0].reason,
            "its replicas did not all run within 1m (worker-1: ErrImagePull)");
  EXPECT_EQ(executor_.killed.size(), 2u) << "both pods exist: both are deleted";
  // Their deletions end the run; its final status changes nothing at the hub.
  core_.on_exits({{ReplicaKey{1, 0}, 137, 9}, {ReplicaKey{1, 1}, 137, 9}}, out_);
  EXPECT_EQ(core_.running_count(), 0u);
  EXPECT_EQ(last_status().phase, protocol::phase::kAborted);
}

TEST_F(WaitingReplicasTest, ExecutorsThatRunAtOnceAreUnchanged) {
  executor_.waits_to_run = false;
  commit_gang(0);
  EXPECT_TRUE(core_.next_time_limit());
  EXPECT_FALSE(core_.next_give_up());
}

}  // namespace
}  // namespace gantry::agents
