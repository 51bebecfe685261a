// The agent's decisions without sockets, once a part is committed: replicas
// started, exits to status updates, cancel, usage; and the Prepare's
// admission and refusals. Time is a plain number. The two phases themselves:
// two_phase_test.cpp.
#include "agents/agent_core.hpp"

#include <gtest/gtest.h>

#include "agent_test_support.hpp"
#include "agents/sim_executor.hpp"

namespace gantry::agents {
namespace {

using testing::make_prepare;
using testing::messages_of;
using testing::prepare_and_commit;

struct AgentCoreTest : ::testing::Test {
  testing::FakeExecutor executor;
  AgentCore core{"test", testing::small_inventory(), executor};
  Outbox out;

  void exit(std::uint64_t dispatch, std::uint32_t rank, int code, int signal = 0) {
    core.on_exits({ReplicaExit{ReplicaKey{dispatch, rank}, code, signal}}, out);
  }
};

TEST_F(AgentCoreTest, CommitStartsEveryReplicaWithRanksInSpecOrder) {
  prepare_and_commit(core, make_prepare(5, "ddp", {{"master", 1, 1}, {"worker", 3, 1}}), 0, out);

  ASSERT_EQ(messages_of<protocol::Admit>(out).size(), 1u);
  EXPECT_EQ(messages_of<protocol::Admit>(out)[0].dispatch_id, 5u);
  ASSERT_EQ(executor.started.size(), 4u);
  for (std::uint32_t rank = 0; rank < 4; ++rank) {
    const ReplicaLaunch& launch = executor.started[rank];
    EXPECT_EQ(launch.key, (ReplicaKey{5, rank}));
    EXPECT_EQ(launch.rank, static_cast<std::int32_t>(rank));
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
  EXPECT_TRUE(hello.running[0].committed);
  EXPECT_EQ(hello.running[0].part, 0);
  EXPECT_EQ(hello.running[0].parts, 1);
  ASSERT_EQ(hello.running[0].replicas.size(), 4u);
  for (std::uint32_t rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(hello.running[0].replicas[rank].task, rank == 0 ? "master" : "worker");
    EXPECT_EQ(hello.running[0].replicas[rank].node, executor.started[rank].node);
  }
}

TEST_F(AgentCoreTest, RejectHoldsNothingAndNamesTheShortfall) {
  protocol::Prepare huge = make_prepare(1, "huge", {{"worker", 3, 4}});
  huge.part = 1;
  huge.parts = 2;
  core.on_prepare(huge, 0, out);
  const auto rejects = messages_of<protocol::Reject>(out);
  ASSERT_EQ(rejects.size(), 1u);
  EXPECT_EQ(rejects[0].dispatch_id, 1u);
  EXPECT_EQ(rejects[0].job, "huge");
  EXPECT_EQ(rejects[0].part, 1);
  EXPECT_NE(rejects[0].reason.find("nvidia.com/gpu"), std::string::npos) << rejects[0].reason;
  EXPECT_TRUE(executor.started.empty());
  EXPECT_FALSE(out.usage_changed);
  EXPECT_EQ(core.running_count(), 0u);
  EXPECT_EQ(core.prepared_count(), 0u);
  EXPECT_TRUE(core.usage_report().accounted_dispatches.empty());
}

TEST_F(AgentCoreTest, ExecutorThatCannotRunTheJobRejectsIt) {
  core.on_prepare(make_prepare(1, "j", {{"w", 1}}, 0, {{"refuse", "no command"}}), 0, out);
  const auto rejects = messages_of<protocol::Reject>(out);
  ASSERT_EQ(rejects.size(), 1u);
  EXPECT_EQ(rejects[0].reason, "refused: no command");
  EXPECT_EQ(core.prepared_count(), 0u);
}

TEST_F(AgentCoreTest, MalformedPrepareIsRejectedNamingTheField) {
  protocol::Prepare bad_part = make_prepare(1, "j", {{"w", 1}});
  bad_part.part = 2;
  bad_part.parts = 2;
  core.on_prepare(bad_part, 0, out);
  protocol::Prepare short_world = make_prepare(2, "j", {{"w", 2}});
  short_world.rank_offset = 3;
  short_world.world_size = 4;
  core.on_prepare(short_world, 0, out);
  const auto rejects = messages_of<protocol::Reject>(out);
  ASSERT_EQ(rejects.size(), 2u);
  EXPECT_EQ(rejects[0].reason.rfind("part: ", 0), 0u) << rejects[0].reason;
  EXPECT_NE(rejects[0].reason.find("(got \"2\")"), std::string::npos) << rejects[0].reason;
  EXPECT_EQ(rejects[1].reason.rfind("world_size: ", 0), 0u) << rejects[1].reason;
  EXPECT_NE(rejects[1].reason.find("rank_offset 3 plus the 2 replicas"), std::string::npos)
      << rejects[1].reason;
  EXPECT_TRUE(executor.started.empty());
  EXPECT_EQ(core.prepared_count(), 0u);
}

TEST_F(AgentCoreTest, EveryExitChangesTheCountsAndTheLastOneCompletesAndFrees) {
  prepare_and_commit(core, make_prepare(3, "pair", {{"w", 2, 4}}), 0, out);
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

// An end that comes after the Hello went out was sent to a hub that may die
// before it stores it: the Welcome of that Hello does not forget it, the
// next Hello repeats it.
TEST_F(AgentCoreTest, AnEndAfterTheHelloIsRepeatedInTheNextHello) {
  Outbox out;
  prepare_and_commit(core, make_prepare(3, "first", {{"w", 1, 4}}), 0, out);
  prepare_and_commit(core, make_prepare(4, "second", {{"w", 1, 4}}), 0, out);
  exit(3, 0, 0);
  ASSERT_EQ(core.hello("v").ended.size(), 1u);  // the Hello repeats the first end
  exit(4, 0, 0);                                // the second ends after it went out
  core.forget_finished();                       // its Welcome
  const protocol::Hello next = core.hello("v");
  ASSERT_EQ(next.ended.size(), 1u);
  EXPECT_EQ(next.ended[0].dispatch_id, 4u);
  core.forget_finished();
  EXPECT_TRUE(core.hello("v").ended.empty());
}

// A standby took over (or the agent restarted): the runs its predecessor
// started are listed in the first Hello and report their ends as usual.
TEST_F(AgentCoreTest, AdoptedRunsAreListedAndEndAsTheirReplicasExit) {
  const auto replica = [](DispatchId id, std::uint32_t rank, const char* task, bool ended,
                          int exit_code) {
    return AdoptedReplica{ReplicaKey{id, rank}, "train", task, "a100-" + std::to_string(rank), 1, 2,
                          static_cast<std::int32_t>(rank), ended, exit_code};
  };
  core.adopt({replica(7, 0, "master", false, 0), replica(7, 1, "worker", true, 0),
              replica(9, 0, "w", true, 0), replica(9, 1, "w", true, 0)});
  const protocol::Hello hello = core.hello("v");
  ASSERT_EQ(hello.running.size(), 1u);
  const protocol::RunningDispatch& running = hello.running[0];
  EXPECT_EQ(running.dispatch_id, 7u);
  EXPECT_TRUE(running.committed);
  EXPECT_EQ((std::pair(running.part, running.parts)), (std::pair(1, 2)));
  ASSERT_EQ(running.replicas.size(), 2u);
  EXPECT_EQ(running.replicas[1].task, "worker");
  EXPECT_EQ(running.replicas[1].node, "a100-1");
  // Dispatch 9 ended whole while no agent watched: repeated as ended.
  ASSERT_EQ(hello.ended.size(), 1u);
  EXPECT_EQ(hello.ended[0].dispatch_id, 9u);
  EXPECT_EQ(hello.ended[0].phase, "Completed");
  // Adopted runs hold nothing in the pool: Kubernetes counts their pods.
  EXPECT_EQ(testing::allocated_gpus(core.usage_report()), 0);

  exit(7, 0, 0);
  const auto updates = messages_of<protocol::StatusUpdate>(out);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].phase, "Completed");
  EXPECT_EQ(testing::task_status(updates[0], "worker")->succeeded, 1);
}

// The agent ended while a part's replicas were still queued to start: the
// ones it started are found, the others never will be. The part is stopped
// as a fence stops it (the hub places the job again), even when what was
// found already succeeded.
TEST_F(AgentCoreTest, AnAdoptedPartMissingReplicasItHadIsStoppedAsFenced) {
  const auto replica = [](DispatchId id, std::uint32_t rank, bool ended) {
    AdoptedReplica adopted{ReplicaKey{id, rank},
                           "train",
                           "w",
                           "a100-0",
                           0,
                           1,
                           static_cast<std::int32_t>(rank),
                           ended,
                           0};
    adopted.part_replicas = 3;
    return adopted;
  };
  core.adopt({replica(7, 0, false), replica(7, 1, false), replica(8, 0, true)});
  EXPECT_EQ(executor.killed, (std::vector<ReplicaKey>{{7, 0}, {7, 1}}));
  const protocol::Hello hello = core.hello("v");
  ASSERT_EQ(hello.ended.size(), 1u);
  EXPECT_EQ(hello.ended[0].dispatch_id, 8u);
  EXPECT_EQ(hello.ended[0].phase, "Failed");
  EXPECT_EQ(hello.ended[0].event, protocol::policy_event::kPodEvicted);
  EXPECT_NE(hello.ended[0].message.find("(1 of 3 started)"), std::string::npos)
      << hello.ended[0].message;

  core.on_exits({ReplicaExit{{7, 0}, 143, 15}, ReplicaExit{{7, 1}, 143, 15}}, out);
  const auto updates = messages_of<protocol::StatusUpdate>(out);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].phase, "Failed");
  EXPECT_EQ(updates[0].event, protocol::policy_event::kPodEvicted);
  EXPECT_NE(updates[0].message.find("(2 of 3 started)"), std::string::npos) << updates[0].message;
}

TEST_F(AgentCoreTest, FailedReplicaStopsTheOthersAndOneFailedUpdateFollowsTheirExit) {
  prepare_and_commit(core, make_prepare(9, "ddp", {{"master", 1}, {"worker", 2}}), 0, out);
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

TEST_F(AgentCoreTest, ReplicaThatCannotStartFailsTheDispatchAfterCommit) {
  executor.fail_start_rank = 1;
  prepare_and_commit(core, make_prepare(4, "j", {{"w", 3}}), 0, out);
  EXPECT_EQ(messages_of<protocol::Admit>(out).size(), 1u);
  EXPECT_EQ(executor.killed, (std::vector<ReplicaKey>{{4, 0}}));  // rank 2 never started
  core.on_exits({ReplicaExit{{4, 0}, 137, 9}}, out);
  const auto updates = messages_of<protocol::StatusUpdate>(out);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].phase, "Failed");
  EXPECT_EQ(updates[0].message, "replica w-1 (rank 1) could not start: no such file");
}

TEST_F(AgentCoreTest, CancelKillsAndReportsAbortedOnceTheReplicasAreGone) {
  prepare_and_commit(core, make_prepare(6, "long", {{"w", 2, 1}}), 0, out);
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
  prepare_and_commit(core,
                     make_prepare(1, "sim", {{"w", 2, 2}}, 0, {{"gantry.io/sim-duration", "2.5"}}),
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
