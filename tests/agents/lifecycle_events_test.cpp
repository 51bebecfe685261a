// What the agent tells the hub for its lifecycle policies: the final
// StatusUpdate of a failed part names the replica that failed it (PodFailed:
// task, replica index within the task, exit code); parts that end otherwise
// name none.
#include <gtest/gtest.h>

#include "agent_test_support.hpp"
#include "agents/agent_core.hpp"

namespace gantry::agents {
namespace {

using testing::make_prepare;
using testing::messages_of;
using testing::prepare_and_commit;

struct LifecycleEventsTest : ::testing::Test {
  testing::FakeExecutor executor;
  AgentCore core{"test", testing::small_inventory(), executor};
  Outbox out;

  protocol::StatusUpdate final_update() {
    const auto updates = messages_of<protocol::StatusUpdate>(out);
    EXPECT_EQ(updates.size(), 1u);
    return updates.empty() ? protocol::StatusUpdate{} : updates.back();
  }
};

TEST_F(LifecycleEventsTest, AFailedPartNamesTheTaskReplicaAndExitCodeThatFailedIt) {
  // master-0 (rank 0), worker-0 (rank 1), worker-1 (rank 2).
  prepare_and_commit(core, make_prepare(9, "ddp", {{"master", 1}, {"worker", 2}}), 0, out);
  out = {};
  core.on_exits({ReplicaExit{{9, 2}, 3, 0}}, out);
  EXPECT_TRUE(messages_of<protocol::StatusUpdate>(out).empty()) << "the others still stop";
  // The others are killed: their exits are the failure's echo, not events.
  core.on_exits({ReplicaExit{{9, 0}, 137, 9}, ReplicaExit{{9, 1}, 137, 9}}, out);
  const protocol::StatusUpdate update = final_update();
  EXPECT_EQ(update.phase, protocol::phase::kFailed);
  EXPECT_EQ(update.event, protocol::policy_event::kPodFailed);
  EXPECT_EQ(update.task, "worker");
  EXPECT_EQ(update.replica, 1);
  EXPECT_EQ(update.exit_code, 3);
}

TEST_F(LifecycleEventsTest, AReplicaThatCannotStartFailsWithExitCode127) {
  executor.fail_start_rank = 1;
  prepare_and_commit(core, make_prepare(4, "j", {{"w", 3}}), 0, out);
  core.on_exits({ReplicaExit{{4, 0}, 137, 9}}, out);
  const protocol::StatusUpdate update = final_update();
  EXPECT_EQ(update.event, protocol::policy_event::kPodFailed);
  EXPECT_EQ(update.task, "w");
  EXPECT_EQ(update.replica, 1);
  EXPECT_EQ(update.exit_code, 127);
}

TEST_F(LifecycleEventsTest, ACompletedPartNamesNoEvent) {
  prepare_and_commit(core, make_prepare(5, "ok", {{"w", 2, 1}}), 0, out);
  out = {};
  core.on_exits({ReplicaExit{{5, 0}, 0, 0}, ReplicaExit{{5, 1}, 0, 0}}, out);
  const protocol::StatusUpdate update = final_update();
  EXPECT_EQ(update.phase, protocol::phase::kCompleted);
  EXPECT_TRUE(update.event.empty());
  EXPECT_EQ(update.replica, -1);
}

TEST_F(LifecycleEventsTest, ACancelledPartNamesNoEvent) {
  prepare_and_commit(core, make_prepare(6, "long", {{"w", 2, 1}}), 0, out);
  out = {};
  core.on_cancel(protocol::Cancel{6, "long"}, out);
  core.on_exits({ReplicaExit{{6, 0}, 137, 9}, ReplicaExit{{6, 1}, 137, 9}}, out);
  const protocol::StatusUpdate update = final_update();
  EXPECT_EQ(update.phase, protocol::phase::kAborted);
  EXPECT_TRUE(update.event.empty());
}

}  // namespace
}  // namespace gantry::agents
