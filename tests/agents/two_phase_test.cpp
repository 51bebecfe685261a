// Two-phase dispatch in the agent core, without sockets: a Prepare holds a
// part's resources and starts nothing; Commit starts it; Abort, Cancel and an
// expired hold release it; duplicates and late messages are answered
// consistently; a split part's replicas learn their place in the whole gang.
// Time is a plain number.
#include <gtest/gtest.h>

#include "agent_test_support.hpp"
#include "agents/agent_core.hpp"

namespace gantry::agents {
namespace {

using testing::commit_for;
using testing::make_prepare;
using testing::messages_of;
using testing::prepare_and_commit;

constexpr TimeMs kHoldMs = 500;

struct TwoPhaseTest : ::testing::Test {
  testing::FakeExecutor executor;
  AgentCore core{"east", testing::small_inventory(), executor,
                 AgentCoreOptions{"10.0.0.7", kHoldMs}};
  Outbox out;

  protocol::Admit admitted(const protocol::Prepare& prepare, TimeMs now) {
    Outbox answer;
    core.on_prepare(prepare, now, answer);
    const auto admits = messages_of<protocol::Admit>(answer);
    EXPECT_EQ(admits.size(), 1u);
    return admits.empty() ? protocol::Admit{} : admits.front();
  }
  std::int64_t allocated_gpus() const { return testing::allocated_gpus(core.usage_report()); }
  std::vector<std::uint64_t> accounted() const { return core.usage_report().accounted_dispatches; }
};

TEST_F(TwoPhaseTest, PrepareHoldsTheResourcesAndStartsNothing) {
  core.on_prepare(make_prepare(4, "ddp", {{"worker", 2, 4}}), 0, out);
  const auto admits = messages_of<protocol::Admit>(out);
  ASSERT_EQ(admits.size(), 1u);
  ASSERT_EQ(out.messages.size(), 1u);  // no StatusUpdate: nothing runs
  EXPECT_EQ(admits[0].dispatch_id, 4u);
  EXPECT_EQ(admits[0].job, "ddp");
  EXPECT_EQ(admits[0].part, 0);
  EXPECT_TRUE(executor.started.empty());
  EXPECT_TRUE(out.usage_changed);
  EXPECT_EQ(allocated_gpus(), 8);
  EXPECT_EQ(accounted(), (std::vector<std::uint64_t>{4}));
  EXPECT_EQ(core.prepared_count(), 1u);
  EXPECT_EQ(core.running_count(), 0u);

  // Held means taken: the next part finds the A100 nodes full.
  Outbox next;
  core.on_prepare(make_prepare(5, "more", {{"worker", 1, 4}}), 0, next);
  ASSERT_EQ(messages_of<protocol::Reject>(next).size(), 1u);
}

TEST_F(TwoPhaseTest, PartZeroNamesTheRendezvousAndOtherPartsDoNot) {
  const protocol::Admit first = admitted(make_prepare(1, "a", {{"w", 1}}), 0);
  EXPECT_EQ(first.rendezvous_host, "10.0.0.7");  // --advertise-address
  EXPECT_EQ(first.rendezvous_port, 29500);       // the executor's pick

  protocol::Prepare second = make_prepare(2, "b", {{"w", 1}});
  second.part = 1;
  second.parts = 2;
  const protocol::Admit other = admitted(second, 0);
  EXPECT_EQ(other.part, 1);
  EXPECT_EQ(other.rendezvous_host, "");
  EXPECT_EQ(other.rendezvous_port, 0);
}

TEST_F(TwoPhaseTest, CommitStartsEveryReplicaOfThePreparedPart) {
  const protocol::Admit admit = admitted(make_prepare(3, "ddp", {{"master", 1}, {"worker", 2}}), 0);
  core.on_commit(commit_for(admit), 10, out);
  ASSERT_EQ(executor.started.size(), 3u);
  for (const ReplicaLaunch& launch : executor.started) {
    EXPECT_EQ(launch.master_addr, "10.0.0.7");
    EXPECT_EQ(launch.master_port, 29500);
    EXPECT_EQ(launch.world_size, 3);
    EXPECT_EQ(launch.cluster, "east");
    EXPECT_EQ(launch.epoch, 1u);
  }
  const auto updates = messages_of<protocol::StatusUpdate>(out);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].phase, "Running");
  EXPECT_FALSE(out.usage_changed);  // the resources were held since the Prepare
  EXPECT_EQ(core.prepared_count(), 0u);
  EXPECT_EQ(core.running_count(), 1u);
  EXPECT_EQ(accounted(), (std::vector<std::uint64_t>{3}));
}

TEST_F(TwoPhaseTest, CommitWithoutAnAddressMeetsOnLoopback) {
  protocol::Prepare prepare = make_prepare(3, "j", {{"w", 1}});
  admitted(prepare, 0);
  core.on_commit(protocol::Commit{3, "j", 0, "", 29400}, 0, out);
  ASSERT_EQ(executor.started.size(), 1u);
  EXPECT_EQ(executor.started[0].master_addr, "127.0.0.1");
  EXPECT_EQ(executor.started[0].master_port, 29400);
}

TEST_F(TwoPhaseTest, ASplitPartsReplicasGetTheirPlaceInTheWholeGang) {
  // Part 1 of 2 of a 6-replica gang: ranks 3..5; the master and one worker
  // run on part 0, so this part's workers are worker-1 and worker-2.
  protocol::Prepare prepare = make_prepare(8, "split", {{"master", 1}, {"worker", 5}});
  prepare.task_replicas = {{"worker", 3}};
  prepare.part = 1;
  prepare.parts = 2;
  prepare.epoch = 4;
  prepare.rank_offset = 3;
  prepare.world_size = 6;
  prepare.task_index_offsets = {{"master", 1}, {"worker", 1}};
  const protocol::Admit admit = admitted(prepare, 0);
  core.on_commit(protocol::Commit{8, "split", 1, "10.9.9.9", 29123}, 0, out);
  ASSERT_EQ(executor.started.size(), 3u);
  for (std::uint32_t local = 0; local < 3; ++local) {
    const ReplicaLaunch& launch = executor.started[local];
    EXPECT_EQ(launch.key, (ReplicaKey{8, local}));
    EXPECT_EQ(launch.rank, 3 + static_cast<std::int32_t>(local));
    EXPECT_EQ(launch.index, 1 + static_cast<std::int32_t>(local));
    EXPECT_EQ(launch.world_size, 6);
    EXPECT_EQ(launch.master_addr, "10.9.9.9");
    EXPECT_EQ(launch.master_port, 29123);
    EXPECT_EQ(launch.epoch, 4u);
  }
  EXPECT_EQ(admit.part, 1);
  // A failure names the replica as the job knows it.
  core.on_exits({ReplicaExit{{8, 1}, 5, 0}}, out);
  core.on_exits({ReplicaExit{{8, 0}, 137, 9}, ReplicaExit{{8, 2}, 137, 9}}, out);
  const auto updates = messages_of<protocol::StatusUpdate>(out);
  ASSERT_FALSE(updates.empty());
  EXPECT_EQ(updates.back().message, "replica worker-2 (rank 4) exited with code 5");
}

// minAvailable 2 of 3 four-GPU replicas, and only the two A100 nodes hold
// one: the gang runs as a world of two.
TEST_F(TwoPhaseTest, AWholeGangAdmittedAtItsMinimumIsASmallerWorld) {
  const protocol::Admit admit = admitted(make_prepare(15, "elastic", {{"w", 3, 4}}, 2), 0);
  core.on_commit(commit_for(admit), 0, out);
  ASSERT_EQ(executor.started.size(), 2u);
  for (std::uint32_t rank = 0; rank < 2; ++rank) {
    EXPECT_EQ(executor.started[rank].rank, static_cast<std::int32_t>(rank));
    EXPECT_EQ(executor.started[rank].world_size, 2);
  }
}

TEST_F(TwoPhaseTest, AbortReleasesAPreparedPartForGood) {
  const protocol::Prepare prepare = make_prepare(6, "gone", {{"w", 2, 4}});
  const protocol::Admit admit = admitted(prepare, 0);
  core.on_abort(protocol::Abort{6, "gone", 0, "part 1 was rejected"}, out);
  EXPECT_TRUE(out.messages.empty());  // the hub knows
  EXPECT_TRUE(out.usage_changed);
  EXPECT_EQ(allocated_gpus(), 0);
  EXPECT_TRUE(accounted().empty());
  EXPECT_EQ(core.prepared_count(), 0u);

  // Late copies: the Prepare is not admitted again, the Commit starts nothing,
  // a second Abort changes nothing.
  Outbox late;
  core.on_prepare(prepare, 1, late);
  core.on_commit(commit_for(admit), 1, late);
  core.on_abort(protocol::Abort{6, "gone", 0, ""}, late);
  const auto rejects = messages_of<protocol::Reject>(late);
  ASSERT_EQ(rejects.size(), 2u);
  ASSERT_EQ(late.messages.size(), 2u);
  for (const protocol::Reject& reject : rejects) {
    EXPECT_EQ(reject.dispatch_id, 6u);
    EXPECT_EQ(reject.reason, "dispatch 6: aborted by the hub: part 1 was rejected");
  }
  EXPECT_FALSE(late.usage_changed);
  EXPECT_TRUE(executor.started.empty());
  EXPECT_EQ(allocated_gpus(), 0);
}

TEST_F(TwoPhaseTest, AbortOfARunningPartStopsItAsCancelDoes) {
  prepare_and_commit(core, make_prepare(7, "running", {{"w", 2, 1}}), 0, out);
  out = {};
  core.on_abort(protocol::Abort{7, "running", 0, "drained"}, out);
  EXPECT_EQ(executor.killed, (std::vector<ReplicaKey>{{7, 0}, {7, 1}}));
  core.on_exits({ReplicaExit{{7, 0}, 137, 9}, ReplicaExit{{7, 1}, 137, 9}}, out);
  const auto updates = messages_of<protocol::StatusUpdate>(out);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].phase, "Aborted");
  EXPECT_EQ(updates[0].message, "aborted by the hub: drained");
  EXPECT_EQ(allocated_gpus(), 0);
}

TEST_F(TwoPhaseTest, CancelOfAPreparedPartReleasesIt) {
  const protocol::Admit admit = admitted(make_prepare(9, "c", {{"w", 1, 2}}), 0);
  core.on_cancel(protocol::Cancel{9, "c"}, out);
  EXPECT_TRUE(out.messages.empty());
  EXPECT_TRUE(out.usage_changed);
  EXPECT_EQ(allocated_gpus(), 0);
  Outbox late;
  core.on_commit(commit_for(admit), 1, late);
  const auto rejects = messages_of<protocol::Reject>(late);
  ASSERT_EQ(rejects.size(), 1u);
  EXPECT_EQ(rejects[0].reason, "dispatch 9: cancelled by the hub before its commit");
  EXPECT_TRUE(executor.started.empty());
}

// Preemption: the hub cancels the victim, then prepares the preemptor on its
// room. The Prepare waits while the victim's replicas stop, instead of being
// refused (which would back the preemptor off and hand the room to another).
TEST_F(TwoPhaseTest, APrepareNeedingTheRoomOfAStoppingRunIsAdmittedWhenItIsGone) {
  prepare_and_commit(core, make_prepare(7, "victim", {{"w", 2, 4}}), 0, out);
  core.on_cancel(protocol::Cancel{7, "victim"}, out);
  Outbox waiting;
  core.on_prepare(make_prepare(8, "preemptor", {{"w", 2, 4}}), 1, waiting);
  core.on_prepare(make_prepare(8, "preemptor", {{"w", 2, 4}}), 2, waiting);  // a resend
  EXPECT_TRUE(waiting.messages.empty()) << "neither admitted nor refused while the victim stops";
  EXPECT_EQ(core.parked_count(), 1u);
  Outbox ended;
  core.on_exits({ReplicaExit{{7, 0}, 137, 9}, ReplicaExit{{7, 1}, 137, 9}}, ended);
  const auto admits = messages_of<protocol::Admit>(ended);
  ASSERT_EQ(admits.size(), 1u);
  EXPECT_EQ(admits[0].dispatch_id, 8u);
  EXPECT_EQ(core.parked_count(), 0u);
  EXPECT_EQ(accounted(), (std::vector<std::uint64_t>{8}));
}

TEST_F(TwoPhaseTest, AParkedPrepareThatStillDoesNotFitIsRefusedOnceNothingMoreIsFreed) {
  prepare_and_commit(core, make_prepare(6, "stays", {{"w", 1, 4}}), 0, out);
  prepare_and_commit(core, make_prepare(7, "victim", {{"w", 1, 4}}), 0, out);
  core.on_cancel(protocol::Cancel{7, "victim"}, out);
  Outbox waiting;
  core.on_prepare(make_prepare(8, "too-big", {{"w", 2, 4}}), 1, waiting);
  EXPECT_TRUE(waiting.messages.empty());
  Outbox ended;
  core.on_exits({ReplicaExit{{7, 0}, 137, 9}}, ended);
  const auto rejects = messages_of<protocol::Reject>(ended);
  ASSERT_EQ(rejects.size(), 1u);
  EXPECT_EQ(rejects[0].dispatch_id, 8u);
  EXPECT_EQ(core.parked_count(), 0u);
  EXPECT_EQ(accounted(), (std::vector<std::uint64_t>{6}));
}

TEST_F(TwoPhaseTest, AParkedPrepareIsRefusedAtItsDeadlineAndDroppedByAnAbort) {
  prepare_and_commit(core, make_prepare(7, "victim", {{"w", 2, 4}}), 0, out);
  core.on_cancel(protocol::Cancel{7, "victim"}, out);
  Outbox waiting;
  core.on_prepare(make_prepare(8, "late", {{"w", 2, 4}}), 10, waiting);
  core.on_prepare(make_prepare(9, "aborted", {{"w", 2, 4}}), 10, waiting);
  EXPECT_EQ(core.next_hold_deadline(), 10 + kHoldMs);
  Outbox aborted;
  core.on_abort(protocol::Abort{9, "aborted", 0, "prepare timed out"}, aborted);
  EXPECT_TRUE(aborted.messages.empty());
  Outbox expired;
  core.expire_holds(10 + kHoldMs, expired);
  const auto rejects = messages_of<protocol::Reject>(expired);
  ASSERT_EQ(rejects.size(), 1u);
  EXPECT_EQ(rejects[0].dispatch_id, 8u);
  EXPECT_EQ(core.parked_count(), 0u);
}

TEST_F(TwoPhaseTest, AHoldThatRunsOutIsReleasedAndALateCommitIsRejected) {
  const protocol::Admit admit = admitted(make_prepare(11, "slow", {{"w", 2, 4}}), 1000);
  EXPECT_EQ(core.next_hold_deadline(), 1000 + kHoldMs);

  core.expire_holds(1000 + kHoldMs - 1, out);
  EXPECT_EQ(core.prepared_count(), 1u);
  EXPECT_FALSE(out.usage_changed);

  core.expire_holds(1000 + kHoldMs, out);
  EXPECT_EQ(core.prepared_count(), 0u);
  EXPECT_EQ(core.next_hold_deadline(), std::nullopt);
  EXPECT_TRUE(out.usage_changed);
  EXPECT_TRUE(out.messages.empty());
  EXPECT_EQ(allocated_gpus(), 0);
  EXPECT_TRUE(accounted().empty());
  ASSERT_EQ(out.warnings.size(), 1u);
  EXPECT_NE(out.warnings[0].find("dispatch 11 (job slow)"), std::string::npos) << out.warnings[0];

  Outbox late;
  core.on_commit(commit_for(admit), 2000, late);
  const auto rejects = messages_of<protocol::Reject>(late);
  ASSERT_EQ(rejects.size(), 1u);
  EXPECT_EQ(rejects[0].dispatch_id, 11u);
  EXPECT_EQ(rejects[0].job, "slow");
  EXPECT_EQ(rejects[0].part, 0);
  EXPECT_EQ(rejects[0].reason, "dispatch 11: prepared part expired before its commit");
  EXPECT_TRUE(executor.started.empty());
}

// The loop may not have woken for the deadline yet: a Commit that comes after
// it still finds the part released.
TEST_F(TwoPhaseTest, ACommitPastTheDeadlineIsRejectedEvenBeforeTheHoldWasSwept) {
  const protocol::Admit admit = admitted(make_prepare(12, "late", {{"w", 1}}), 0);
  core.on_commit(commit_for(admit), kHoldMs, out);
  ASSERT_EQ(messages_of<protocol::Reject>(out).size(), 1u);
  EXPECT_EQ(out.warnings.size(), 1u);
  EXPECT_TRUE(executor.started.empty());
}

TEST_F(TwoPhaseTest, CommitForAPartNeverPreparedHereIsRejected) {
  core.on_commit(protocol::Commit{77, "stranger", 1, "10.0.0.1", 1}, 0, out);
  const auto rejects = messages_of<protocol::Reject>(out);
  ASSERT_EQ(rejects.size(), 1u);
  EXPECT_EQ(rejects[0].reason, "dispatch 77: not prepared here");
  EXPECT_EQ(rejects[0].part, 1);
  EXPECT_EQ(rejects[0].job, "stranger");
}

TEST_F(TwoPhaseTest, DuplicatePrepareGetsTheSameAnswerAndHoldsNothingTwice) {
  const protocol::Prepare fits = make_prepare(1, "a", {{"w", 2, 1}});
  const protocol::Prepare too_big = make_prepare(2, "b", {{"w", 1, 16}});
  core.on_prepare(fits, 0, out);
  core.on_prepare(too_big, 0, out);
  Outbox again;
  core.on_prepare(fits, 1, again);
  core.on_prepare(too_big, 1, again);
  ASSERT_EQ(again.messages.size(), 2u);
  EXPECT_EQ(std::get<protocol::Admit>(again.messages[0]).rendezvous_port, 29500);
  EXPECT_EQ(std::get<protocol::Admit>(again.messages[0]).rendezvous_host, "10.0.0.7");
  EXPECT_EQ(std::get<protocol::Reject>(again.messages[1]).reason,
            messages_of<protocol::Reject>(out)[0].reason);
  EXPECT_FALSE(again.usage_changed);
  EXPECT_EQ(allocated_gpus(), 2);

  // Still the same answer once it runs and after it finished.
  core.on_commit(commit_for(std::get<protocol::Admit>(again.messages[0])), 2, out);
  Outbox running;
  core.on_prepare(fits, 3, running);
  ASSERT_EQ(running.messages.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<protocol::Admit>(running.messages[0]));
  core.on_exits({ReplicaExit{{1, 0}, 0, 0}, ReplicaExit{{1, 1}, 0, 0}}, out);
  Outbox late;
  core.on_prepare(fits, 4, late);
  ASSERT_EQ(late.messages.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<protocol::Admit>(late.messages[0]));
  EXPECT_EQ(executor.started.size(), 2u);

  // A hub of another epoch may use the same ids again (older hubs did).
  core.forget_finished();
  Outbox fresh;
  prepare_and_commit(core, fits, 5, fresh);
  EXPECT_EQ(executor.started.size(), 4u);
}

TEST_F(TwoPhaseTest, DuplicateCommitRepeatsTheStatusAndStartsNothingTwice) {
  const protocol::Admit admit = admitted(make_prepare(13, "twice", {{"w", 2, 1}}), 0);
  core.on_commit(commit_for(admit), 0, out);
  Outbox again;
  core.on_commit(commit_for(admit), 1, again);
  EXPECT_EQ(executor.started.size(), 2u);
  ASSERT_EQ(again.messages.size(), 1u);
  EXPECT_EQ(std::get<protocol::StatusUpdate>(again.messages[0]).phase, "Running");
  EXPECT_FALSE(again.usage_changed);

  core.on_exits({ReplicaExit{{13, 0}, 0, 0}, ReplicaExit{{13, 1}, 0, 0}}, out);
  Outbox after_end;
  core.on_commit(commit_for(admit), 2, after_end);
  ASSERT_EQ(after_end.messages.size(), 1u);
  EXPECT_EQ(std::get<protocol::StatusUpdate>(after_end.messages[0]).phase, "Completed");
  EXPECT_EQ(executor.started.size(), 2u);
}

TEST_F(TwoPhaseTest, DuplicateAbortAndAbortOfAnUnknownPartAreHarmless) {
  admitted(make_prepare(14, "x", {{"w", 1, 1}}), 0);
  core.on_abort(protocol::Abort{14, "x", 0, ""}, out);
  Outbox again;
  core.on_abort(protocol::Abort{14, "x", 0, ""}, again);
  core.on_abort(protocol::Abort{99, "never", 0, ""}, again);
  EXPECT_TRUE(again.messages.empty());
  EXPECT_FALSE(again.usage_changed);
  EXPECT_EQ(allocated_gpus(), 0);
}

TEST_F(TwoPhaseTest, HelloListsPreparedPartsAsNotCommitted) {
  protocol::Prepare split = make_prepare(21, "split", {{"w", 4, 1}});
  split.task_replicas = {{"w", 2}};
  split.part = 1;
  split.parts = 3;
  admitted(split, 0);
  prepare_and_commit(core, make_prepare(20, "whole", {{"w", 1, 1}}), 0, out);

  const protocol::Hello hello = core.hello("v");
  ASSERT_EQ(hello.running.size(), 2u);
  EXPECT_EQ(hello.running[0].dispatch_id, 20u);
  EXPECT_TRUE(hello.running[0].committed);
  EXPECT_EQ(hello.running[0].parts, 1);
  const protocol::RunningDispatch& prepared = hello.running[1];
  EXPECT_EQ(prepared.dispatch_id, 21u);
  EXPECT_EQ(prepared.job, "split");
  EXPECT_FALSE(prepared.committed);
  EXPECT_EQ(prepared.part, 1);
  EXPECT_EQ(prepared.parts, 3);
  ASSERT_EQ(prepared.replicas.size(), 2u);
  for (const protocol::PlacedReplica& replica : prepared.replicas) {
    EXPECT_EQ(replica.task, "w");
    EXPECT_FALSE(replica.node.empty());
  }
  EXPECT_TRUE(hello.ended.empty());  // a prepared part has no status to repeat
}

}  // namespace
}  // namespace gantry::agents
