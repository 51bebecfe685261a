// Replica bookkeeping and how replica states add up to a Volcano phase and task
// counts.
#include "agents/dispatch_run.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "agent_test_support.hpp"

namespace gantry::agents {
namespace {

// master-0 (rank 0), worker-0 (rank 1), worker-1 (rank 2).
DispatchRun make_run() {
  auto job = std::make_shared<const protocol::JobSpec>(
      testing::make_prepare(7, "ddp", {{"master", 1}, {"worker", 2}}).job);
  std::vector<RunReplica> replicas = {{0, 0, "n0"}, {1, 0, "n0"}, {1, 1, "n1"}};
  return DispatchRun(7, job, replicas, {});
}

protocol::StatusUpdate status(const DispatchRun& run) {
  protocol::StatusUpdate update;
  run.fill_status(update);
  return update;
}

void start_all(DispatchRun& run) {
  for (std::uint32_t rank = 0; rank < run.replicas().size(); ++rank) run.started(rank);
}

TEST(DispatchRun, PendingUntilEveryReplicaStartedThenRunning) {
  DispatchRun run = make_run();
  EXPECT_STREQ(run.phase(), "Pending");
  run.started(0);
  run.started(1);
  EXPECT_STREQ(run.phase(), "Pending");
  run.started(2);
  EXPECT_STREQ(run.phase(), "Running");
  const protocol::StatusUpdate update = status(run);
  EXPECT_EQ(update.dispatch_id, 7u);
  EXPECT_EQ(update.job, "ddp");
  ASSERT_EQ(update.tasks.size(), 2u);
  EXPECT_EQ(update.tasks[0].name, "master");
  EXPECT_EQ(update.tasks[0].running, 1);
  EXPECT_EQ(update.tasks[1].running, 2);
}

TEST(DispatchRun, ElasticStateIsOneJsonDocumentOfTheLiveMembers) {
  DispatchRun run = make_run();
  start_all(run);
  run.exited(2, 0, 0);
  const std::string text = run.elastic_state_json("east \"quoted\"\x01");
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  const auto state = nlohmann::ordered_json::parse(text);
  EXPECT_EQ(state.begin().key(), "job") << "fields in the order docs/elastic.md lists them";
  EXPECT_EQ(state["job"], "ddp");
  EXPECT_EQ(state["dispatch_id"], 7);
  EXPECT_EQ(state["max_replicas"], 3);
  EXPECT_EQ(state["cluster"], "east \"quoted\"\x01");
  ASSERT_EQ(state["members"].size(), 2u);
  EXPECT_EQ(
      state["members"][1],
      nlohmann::ordered_json({{"task", "worker"}, {"index", 0}, {"rank", 1}, {"node", "n0"}}));
}

TEST(DispatchRun, CompletedOnlyWhenEveryReplicaSucceeded) {
  DispatchRun run = make_run();
  start_all(run);
  run.exited(1, 0, 0);
  EXPECT_STREQ(run.phase(), "Running");
  EXPECT_EQ(testing::task_status(status(run), "worker")->succeeded, 1);
  EXPECT_EQ(testing::task_status(status(run), "worker")->running, 1);
  run.exited(0, 0, 0);
  run.exited(2, 0, 0);
  EXPECT_TRUE(run.finished());
  EXPECT_STREQ(run.phase(), "Completed");
  EXPECT_EQ(testing::task_status(status(run), "worker")->succeeded, 2);
  EXPECT_TRUE(run.message().empty());
}

TEST(DispatchRun, FirstFailureNamesReplicaAndCodeAndTheRestMustStop) {
  DispatchRun run = make_run();
  start_all(run);
  run.exited(2, 3, 0);
  EXPECT_TRUE(run.ending());
  EXPECT_FALSE(run.finished());
  EXPECT_EQ(run.message(), "replica worker-1 (rank 2) exited with code 3");
  EXPECT_TRUE(run.is_unstopped(0));
  EXPECT_TRUE(run.stopping(0));
  EXPECT_TRUE(run.stopping(1));
  EXPECT_FALSE(run.is_unstopped(0));
  run.exited(0, 137, 9);  // killed by us: not a second failure
  run.exited(1, 137, 9);
  EXPECT_TRUE(run.finished());
  EXPECT_STREQ(run.phase(), "Failed");
  EXPECT_EQ(run.message(), "replica worker-1 (rank 2) exited with code 3");
  EXPECT_EQ(testing::task_status(status(run), "worker")->failed, 2);
  EXPECT_EQ(testing::task_status(status(run), "master")->failed, 1);
}

TEST(DispatchRun, ReplicaKilledBySignalOnItsOwnIsAFailure) {
  DispatchRun run = make_run();
  start_all(run);
  run.exited(0, 128 + 11, 11);
  EXPECT_EQ(run.message(), "replica master-0 (rank 0) was killed by signal 11");
}

TEST(DispatchRun, CancelEndsAbortedOnceEveryReplicaIsGone) {
  DispatchRun run = make_run();
  start_all(run);
  run.exited(0, 0, 0);
  run.cancel();
  EXPECT_TRUE(run.ending());
  EXPECT_FALSE(run.is_unstopped(0));  // already succeeded
  EXPECT_TRUE(run.stopping(1));
  EXPECT_TRUE(run.stopping(2));
  run.exited(1, 137, 9);
  EXPECT_FALSE(run.finished());
  run.exited(2, 137, 9);
  EXPECT_TRUE(run.finished());
  EXPECT_STREQ(run.phase(), "Aborted");
}

TEST(DispatchRun, ReplicaThatCouldNotStartFailsTheRunAndUnstartedOnesNeedNoKill) {
  DispatchRun run = make_run();
  run.started(0);
  run.failed_to_start(1, "no such file");
  EXPECT_EQ(run.message(), "replica worker-0 (rank 1) could not start: no such file");
  EXPECT_TRUE(run.stopping(0));
  EXPECT_FALSE(run.stopping(2));  // never started: nothing to kill, it just ends
  EXPECT_FALSE(run.finished());
  run.exited(0, 137, 9);
  EXPECT_TRUE(run.finished());
  EXPECT_STREQ(run.phase(), "Failed");
}

TEST(DispatchRun, LateDuplicateExitIsIgnored) {
  DispatchRun run = make_run();
  start_all(run);
  run.exited(0, 0, 0);
  run.exited(0, 5, 0);
  EXPECT_FALSE(run.ending());
  EXPECT_EQ(testing::task_status(status(run), "master")->succeeded, 1);
}

}  // namespace
}  // namespace gantry::agents
