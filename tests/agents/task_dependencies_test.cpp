// spec.tasks[].dependsOn: the gate's bookkeeping (all / any, tasks of other
// parts) and the agent starting a task only after the tasks it names run.
#include "agents/task_dependencies.hpp"

#include <gtest/gtest.h>

#include "agent_test_support.hpp"

namespace gantry::agents {
namespace {

using testing::TaskDef;

protocol::JobSpec three_tasks(std::vector<std::string> names, std::string iteration) {
  protocol::JobSpec job;
  job.name = "j";
  for (const char* task : {"db", "cache", "app"}) {
    job.tasks.emplace_back();
    job.tasks.back().name = task;
    job.tasks.back().replicas = 2;
  }
  job.tasks[2].depends_on = protocol::TaskDependency{std::move(names), std::move(iteration)};
  return job;
}

std::vector<RunReplica> two_of_each(const protocol::JobSpec& job) {
  std::vector<RunReplica> replicas;
  for (std::uint32_t t = 0; t < job.tasks.size(); ++t)
    for (std::int32_t i = 0; i < 2; ++i) replicas.push_back(RunReplica{t, i, "n", {}, 0});
  return replicas;
}

TEST(TaskStartGate, AllWaitsForEveryReplicaOfEveryNamedTask) {
  const auto job = three_tasks({"db", "cache"}, "");
  TaskStartGate gate(job, two_of_each(job));
  EXPECT_TRUE(gate.may_start(0));
  EXPECT_TRUE(gate.may_start(1));
  EXPECT_FALSE(gate.may_start(2));
  gate.running(0);
  gate.running(0);
  gate.running(1);
  EXPECT_FALSE(gate.may_start(2)) << "one cache replica is not running yet";
  gate.running(1);
  EXPECT_TRUE(gate.may_start(2));
}

TEST(TaskStartGate, AnyWaitsForOneNamedTaskWhole) {
  const auto job = three_tasks({"db", "cache"}, "any");
  TaskStartGate gate(job, two_of_each(job));
  gate.running(0);
  gate.running(1);
  EXPECT_FALSE(gate.may_start(2));
  gate.running(1);
  EXPECT_TRUE(gate.may_start(2));
}

TEST(TaskStartGate, ANamedTaskOfAnotherPartCountsAsRunning) {
  const auto job = three_tasks({"db"}, "all");
  std::vector<RunReplica> here = {RunReplica{2, 0, "n", {}, 0}};  // only app here
  EXPECT_TRUE(TaskStartGate(job, here).may_start(2));
}

// The dependent task comes first in spec order (so it holds rank 0), yet the
// agent starts it only once every replica of the task it names has started.
TEST(TaskDependencies, TheAgentStartsADependentTaskAfterTheTasksItNames) {
  testing::FakeExecutor executor;
  AgentCore core("test", testing::small_inventory(), executor);
  auto prepare = testing::make_prepare(
      1, "ordered",
      {TaskDef{.name = "client", .replicas = 2}, TaskDef{.name = "server", .replicas = 2}});
  prepare.job.tasks[0].depends_on.names = {"server"};
  Outbox out;
  ASSERT_TRUE(testing::prepare_and_commit(core, prepare, 0, out));
  ASSERT_EQ(executor.started.size(), 4u);
  std::vector<std::uint32_t> tasks;
  for (const ReplicaLaunch& launch : executor.started) tasks.push_back(launch.task);
  EXPECT_EQ(tasks, (std::vector<std::uint32_t>{1, 1, 0, 0}));
  EXPECT_EQ(executor.started[2].key.rank, 0u) << "ranks stay in spec order";
  const auto updates = testing::messages_of<protocol::StatusUpdate>(out);
  ASSERT_FALSE(updates.empty());
  EXPECT_EQ(updates.back().phase, protocol::phase::kRunning);
}

// A named task that never runs (here: it fails to start) leaves the
// dependent Pending: it is never started, and the gang fails as a whole.
TEST(TaskDependencies, ADependentTaskNeverStartsBeforeItsDependencyRuns) {
  testing::FakeExecutor executor;
  executor.fail_start_rank = 1;  // the server's only replica
  AgentCore core("test", testing::small_inventory(), executor);
  auto prepare = testing::make_prepare(
      2, "broken",
      {TaskDef{.name = "client", .replicas = 1}, TaskDef{.name = "server", .replicas = 1}});
  prepare.job.tasks[0].depends_on.names = {"server"};
  Outbox out;
  ASSERT_TRUE(testing::prepare_and_commit(core, prepare, 0, out));
  EXPECT_TRUE(executor.started.empty());
  const auto updates = testing::messages_of<protocol::StatusUpdate>(out);
  ASSERT_FALSE(updates.empty());
  EXPECT_EQ(updates.back().phase, protocol::phase::kFailed);
}

}  // namespace
}  // namespace gantry::agents
