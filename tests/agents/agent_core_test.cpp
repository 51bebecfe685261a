// The agent's decisions without sockets: admit/reject, duplicates, replica
// exits to status updates, cancel, usage. Time is a plain number.
#include "agents/agent_core.hpp"

#include <gtest/gtest.h>

#include "agent_test_support.hpp"
#include "agents/sim_executor.hpp"

namespace gantry::agents {
namespace {

using testing::make_dispatch;
using testing::messages_of;

struct AgentCoreTest : ::testing::Test {
  testing::FakeExecutor executor;
  AgentCore core{"test", testing::small_inventory(), executor};
  Outbox out;

  void exit(std::uint64_t dispatch, std::uint32_t rank, int code, int signal = 0) {
    core.on_exits({ReplicaExit{ReplicaKey{dispatch, rank}, code, signal}}, out);
  }
};

TEST_F(AgentCoreTest, AdmitStartsEveryReplicaWithRanksInSpecOrder) {
  core.on_dispatch(make_dispatch(5, "ddp", {{"master", 1, 1}, {"worker", 3, 1}}), 0, out);

  ASSERT_EQ(messages_of<protocol::Admit>(out).size(), 1u);
  EXPECT_EQ(messages_of<protocol::Admit>(out)[0].dispatch_id, 5u);
  ASSERT_EQ(executor.started.size(), 4u);
  for (std::uint32_t rank = 0; rank < 4; ++rank) {
    const ReplicaLaunch& launch = executor.started[rank];
    EXPECT_EQ(launch.key, (ReplicaKey{5, rank}));
    EXPECT_EQ(launch.world_size, 4);
    EXPECT_EQ(launch.task, rank == 0 ? 0u : 1u);
    EXPECT_EQ(launch.index, rank == 0 ? 0 : static_cast<std::int32_t>(rank) - 1);
    EXPECT_FALSE(launch.node.empty());
  }
  const auto updates = messages_of<protocol::StatusUpdate>(out);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].phase, "Running");
  EXPECT_TRUE(out.usage_changed);

  const protocol::UsageReport report = core.usage_report();
  EXPECT_EQ(report.cluster, "test");
  EXPECT_EQ(report.accounted_dispatches, (std::vector<std::uint64_t>{5}));
  EXPECT_EQ(testing::allocated_gpus(report), 4);
  // A Hello names the run with each replica's task and node, in rank order.
  const protocol::Hello hello = core.hello("v");
  ASSERT_EQ(hello.running.size(), 1u);
  EXPECT_EQ(hello.running[0].dispatch_id, 5u);
  EXPECT_EQ(hello.running[0].job, "ddp");
  ASSERT_EQ(hello.running[0].replicas.size(), 4u);
  for (std::uint32_t rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(hello.running[0].replicas[rank].task, rank == 0 ? "master" : "worker");
    EXPECT_EQ(hello.running[0].replicas[rank].node, executor.started[rank].node);
  }
}

TEST_F(AgentCoreTest, RejectStartsNothingAndNamesTheShortfall) {
  core.on_dispatch(make_dispatch(1, "huge", {{"worker", 3, 4}}), 0, out);
  const auto rejects = messages_of<protocol::Reject>(out);
  ASSERT_EQ(rejects.size(), 1u);
  EXPECT_EQ(rejects[0].job, "huge");
  EXPECT_NE(rejects[0].reason.find("nvidia.com/gpu"), std::string::npos) << rejects[0].reason;
  EXPECT_TRUE(executor.started.empty());
  EXPECT_FALSE(out.usage_changed);
  EXPECT_EQ(core.running_count(), 0u);
}

TEST_F(AgentCoreTest, ExecutorThatCannotRunTheJobRejectsIt) {
  core.on_dispatch(make_dispatch(1, "j", {{"w", 1}}, 0, {{"refuse", "no command"}}), 0, out);
  const auto rejects = messages_of<protocol::Reject>(out);
  ASSERT_EQ(rejects.size(), 1u);
  EXPECT_EQ(rejects[0].reason, "refused: no command");
}

TEST_F(AgentCoreTest, DuplicateDispatchGetsTheSameAnswerAndStartsNothingTwice) {
  const protocol::Dispatch fits = make_dispatch(1, "a", {{"w", 2, 1}});
  const protocol::Dispatch too_big = make_dispatch(2, "b", {{"w", 1, 16}});
  core.on_dispatch(fits, 0, out);
  core.on_dispatch(too_big, 0, out);
  Outbox again;
  core.on_dispatch(fits, 1, again);
  core.on_dispatch(too_big, 1, again);
  EXPECT_EQ(executor.started.size(), 2u);
  ASSERT_EQ(again.messages.size(), 2u);
  EXPECT_EQ(std::get<protocol::Admit>(again.messages[0]).dispatch_id, 1u);
  EXPECT_EQ(std::get<protocol::Reject>(again.messages[1]).reason,
            messages_of<protocol::Reject>(out)[0].reason);
  EXPECT_FALSE(again.usage_changed);

  // Still a duplicate after it finished.
  exit(1, 0, 0);
  exit(1, 1, 0);
  Outbox late;
  core.on_dispatch(fits, 2, late);
  EXPECT_EQ(executor.started.size(), 2u);
  ASSERT_EQ(late.messages.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<protocol::Admit>(late.messages[0]));

  // A hub of another epoch may use the same ids again (older hubs did).
  core.forget_finished();
  Outbox fresh;
  core.on_dispatch(fits, 3, fresh);
  EXPECT_EQ(executor.started.size(), 4u);
}

TEST_F(AgentCoreTest, EveryExitChangesTheCountsAndTheLastOneCompletesAndFrees) {
  core.on_dispatch(make_dispatch(3, "pair", {{"w", 2, 4}}), 0, out);
  out = {};
  exit(3, 1, 0);
  auto updates = messages_of<protocol::StatusUpdate>(out);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].phase, "Running");
  EXPECT_EQ(testing::task_status(updates[0], "w")->succeeded, 1);
  EXPECT_FALSE(out.usage_changed);

  out = {};
  exit(3, 0, 0);
  updates = messages_of<protocol::StatusUpdate>(out);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].phase, "Completed");
  EXPECT_EQ(testing::task_status(updates[0], "w")->succeeded, 2);
  EXPECT_TRUE(out.usage_changed);
  EXPECT_EQ(core.running_count(), 0u);
  EXPECT_EQ(testing::allocated_gpus(core.usage_report()), 0);
  EXPECT_TRUE(core.usage_report().accounted_dispatches.empty());
  // The next Hello repeats the end (the hub may have missed it), until a
  // hub of a new epoch has had it.
  const protocol::Hello hello = core.hello("v");
  EXPECT_TRUE(hello.running.empty());
  ASSERT_EQ(hello.ended.size(), 1u);
  EXPECT_EQ(hello.ended[0].dispatch_id, 3u);
  EXPECT_EQ(hello.ended[0].job, "pair");
  EXPECT_EQ(hello.ended[0].phase, "Completed");
  core.forget_finished();
  EXPECT_TRUE(core.hello("v").ended.empty());
}

TEST_F(AgentCoreTest, FailedReplicaStopsTheOthersAndOneFailedUpdateFollowsTheirExit) {
  core.on_dispatch(make_dispatch(9, "ddp", {{"master", 1}, {"worker", 2}}), 0, out);
  out = {};
  exit(9, 2, 3);
  EXPECT_EQ(executor.killed, (std::vector<ReplicaKey>{{9, 0}, {9, 1}}));
  EXPECT_TRUE(messages_of<protocol::StatusUpdate>(out).empty());  // not over yet

  core.on_exits({ReplicaExit{{9, 0}, 137, 9}, ReplicaExit{{9, 1}, 137, 9}}, out);
  const auto updates = messages_of<protocol::StatusUpdate>(out);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].phase, "Failed");
  EXPECT_EQ(updates[0].message, "replica worker-1 (rank 2) exited with code 3");
  EXPECT_EQ(testing::task_status(updates[0], "worker")->failed, 2);
  EXPECT_TRUE(out.usage_changed);
  EXPECT_EQ(core.running_count(), 0u);
}

TEST_F(AgentCoreTest, ReplicaThatCannotStartFailsTheDispatchAfterAdmit) {
  executor.fail_start_rank = 1;
  core.on_dispatch(make_dispatch(4, "j", {{"w", 3}}), 0, out);
  EXPECT_EQ(messages_of<protocol::Admit>(out).size(), 1u);
  EXPECT_EQ(executor.killed, (std::vector<ReplicaKey>{{4, 0}}));  // rank 2 never started
  core.on_exits({ReplicaExit{{4, 0}, 137, 9}}, out);
  const auto updates = messages_of<protocol::StatusUpdate>(out);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].phase, "Failed");
  EXPECT_EQ(updates[0].message, "replica w-1 (rank 1) could not start: no such file");
}

TEST_F(AgentCoreTest, CancelKillsAndReportsAbortedOnceTheReplicasAreGone) {
  core.on_dispatch(make_dispatch(6, "long", {{"w", 2, 1}}), 0, out);
  out = {};
  core.on_cancel(protocol::Cancel{6, "long"}, out);
  EXPECT_EQ(executor.killed.size(), 2u);
  EXPECT_TRUE(out.messages.empty());
  core.on_exits({ReplicaExit{{6, 0}, 137, 9}, ReplicaExit{{6, 1}, 137, 9}}, out);
  const auto updates = messages_of<protocol::StatusUpdate>(out);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].phase, "Aborted");
  EXPECT_TRUE(out.usage_changed);

  Outbox unknown;
  core.on_cancel(protocol::Cancel{6, "long"}, unknown);  // already over
  core.on_cancel(protocol::Cancel{77, "never"}, unknown);
  EXPECT_TRUE(unknown.messages.empty());
}

TEST(AgentCoreSim, SimulatedGangCompletesWhenTheClockReachesItsDuration) {
  SimExecutor executor;
  AgentCore core("test", testing::small_inventory(), executor);
  Outbox out;
  core.on_dispatch(make_dispatch(1, "sim", {{"w", 2, 2}}, 0, {{"gantry.io/sim-duration", "2.5"}}),
                   1000, out);
  ASSERT_EQ(messages_of<protocol::Admit>(out).size(), 1u);
  EXPECT_EQ(executor.next_deadline(), 3500);

  std::vector<ReplicaExit> exits;
  executor.collect_exits(3499, exits);
  EXPECT_TRUE(exits.empty());
  executor.collect_exits(3500, exits);
  out = {};
  core.on_exits(exits, out);
  const auto updates = messages_of<protocol::StatusUpdate>(out);
  ASSERT_EQ(updates.size(), 1u);  // both exits in one batch: one update
  EXPECT_EQ(updates[0].phase, "Completed");
  EXPECT_EQ(core.running_count(), 0u);
}

}  // namespace
}  // namespace gantry::agents
