// A committed part that runs past its job's time limit (the Prepare's
// time_limit_ms, counted from its Commit) is stopped by the agent and ends
// Failed, "time limit (...)": simulated replicas at the limit on the caller's
// clock, real processes killed with their whole process group.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <functional>
#include <limits>

#include "agent_test_support.hpp"
#include "agents/process_executor.hpp"
#include "agents/sim_executor.hpp"
#include "support/temp_dir.hpp"

namespace gantry::agents {
namespace {

using testing::make_prepare;
using testing::messages_of;
using testing::prepare_and_commit;
using namespace std::chrono_literals;

std::optional<protocol::StatusUpdate> final_update(const Outbox& out) {
  for (const auto& update : messages_of<protocol::StatusUpdate>(out)) {
    if (update.phase != "Running" && update.phase != "Pending") return update;
  }
  return std::nullopt;
}

// A gang of two 2-GPU simulated replicas that run `duration` seconds, under
// a limit of `limit_ms`.
protocol::Prepare sim_prepare(std::uint64_t id, const std::string& duration, TimeMs limit_ms) {
  protocol::Prepare prepare =
      make_prepare(id, "sim", {{"w", 2, 2}}, 0, {{"gantry.io/sim-duration", duration}});
  prepare.time_limit_ms = limit_ms;
  return prepare;
}

struct SimTimeLimitTest : ::testing::Test {
  // What the agent's loop does once its clock reads `now`, until nothing is
  // due: replica exits first, then holds and time limits.
  void clock_reaches(TimeMs now) {
    std::vector<ReplicaExit> exits;
    const auto due = [&](std::optional<TimeMs> at) { return at && *at <= now; };
    while (due(executor.next_deadline()) || due(core.next_time_limit())) {
      exits.clear();
      executor.collect_exits(now, exits);
      if (!exits.empty()) core.on_exits(exits, out);
      core.expire_time_limits(now, out);
    }
  }

  SimExecutor executor;
  AgentCore core{"test", testing::small_inventory(), executor};
  Outbox out;
};

TEST_F(SimTimeLimitTest, RunLongerThanItsLimitEndsFailedAtTheLimit) {
  prepare_and_commit(core, sim_prepare(1, "3600", 2000), 1000, out);
  ASSERT_EQ(executor.running(), 2u);
  EXPECT_EQ(core.next_time_limit(), 3000) << "the limit counts from the Commit";

  out = {};
  clock_reaches(2999);
  EXPECT_FALSE(final_update(out).has_value());
  EXPECT_EQ(executor.running(), 2u);

  clock_reaches(3000);
  const auto ended = final_update(out);
  ASSERT_TRUE(ended.has_value());
  EXPECT_EQ(ended->phase, "Failed");
  EXPECT_EQ(ended->message, "time limit (2s)");
  EXPECT_EQ(testing::task_status(*ended, "w")->failed, 2);
  EXPECT_EQ(executor.running(), 0u) << "its replicas are gone";
  EXPECT_EQ(core.running_count(), 0u);
  EXPECT_EQ(testing::allocated_gpus(core.usage_report()), 0) << "and their GPUs free";
  EXPECT_EQ(core.next_time_limit(), std::nullopt);
}

TEST_F(SimTimeLimitTest, RunWithinItsLimitCompletesAndItsDeadlineIsDropped) {
  prepare_and_commit(core, sim_prepare(1, "1.5", 2000), 0, out);
  clock_reaches(1500);
  ASSERT_TRUE(final_update(out).has_value());
  EXPECT_EQ(final_update(out)->phase, "Completed");
  EXPECT_EQ(core.next_time_limit(), std::nullopt);
}

TEST_F(SimTimeLimitTest, CancelledRunEndsAbortedNotByItsLimit) {
  prepare_and_commit(core, sim_prepare(1, "3600", 2000), 0, out);
  core.on_cancel(protocol::Cancel{1, "sim"}, out);
  clock_reaches(10'000);
  ASSERT_TRUE(final_update(out).has_value());
  EXPECT_EQ(final_update(out)->phase, "Aborted");
  EXPECT_EQ(core.next_time_limit(), std::nullopt);
}

TEST_F(SimTimeLimitTest, NoLimitNeverStopsTheRun) {
  prepare_and_commit(core, sim_prepare(1, "3600", 0), 0, out);
  EXPECT_EQ(core.next_time_limit(), std::nullopt);
  clock_reaches(3'599'999);
  EXPECT_FALSE(final_update(out).has_value());
  EXPECT_EQ(executor.running(), 2u);
}

TEST_F(SimTimeLimitTest, LimitPastTheClocksEndIsNoLimit) {
  prepare_and_commit(core, sim_prepare(1, "3600", std::numeric_limits<TimeMs>::max()), 1000, out);
  EXPECT_EQ(core.next_time_limit(), std::numeric_limits<TimeMs>::max());
  clock_reaches(3'601'000);
  ASSERT_TRUE(final_update(out).has_value());
  EXPECT_EQ(final_update(out)->phase, "Completed");
}

TEST_F(SimTimeLimitTest, NegativeLimitIsRejectedNamingTheField) {
  core.on_prepare(sim_prepare(1, "1", -5), 0, out);
  const auto rejects = messages_of<protocol::Reject>(out);
  ASSERT_EQ(rejects.size(), 1u);
  EXPECT_EQ(rejects[0].reason.rfind("time_limit_ms: ", 0), 0u) << rejects[0].reason;
  EXPECT_EQ(core.prepared_count(), 0u);
}

struct ProcessTimeLimitTest : ::testing::Test {
  void SetUp() override {
    executor = std::make_unique<ProcessExecutor>(temp_dir.path());
    core = std::make_unique<AgentCore>("test", testing::small_inventory(), *executor);
  }
  void TearDown() override {
    core.reset();
    executor.reset();
  }

  // Feeds what started and ended to the core until the part has ended; false if the
  // deadline passes first (a broken test, not a measurement).
  bool run_until_over() {
    const auto deadline = testing::deadline_in(60s);
    while (!final_update(out)) {
      if (!testing::executor_turn(*executor, *core, out, 0, deadline)) return false;
    }
    return true;
  }

  support::TempDir temp_dir{"gantry-time-limit-test"};
  std::unique_ptr<ProcessExecutor> executor;
  std::unique_ptr<AgentCore> core;
  Outbox out;
};

// The agent's clock is a plain number here: the limit is reached by saying
// so, not by waiting for it.
TEST_F(ProcessTimeLimitTest, ReplicasStillRunningAtTheLimitAreKilledWithTheirChildren) {
  // Orphans of this process come back to it, so the test can wait for the
  // replica's own child after its shell is gone.
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  const std::filesystem::path fifo = temp_dir.path() / "sleep.pid";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  protocol::Prepare prepare =
      make_prepare(7, "overrun",
                   {{"w",
                     1,
                     0,
                     1,
                     {},
                     {"/bin/sh", "-c", "sleep 1000 & echo $! > " + fifo.string() + "; wait"}}});
  prepare.time_limit_ms = 90 * 60'000;
  ASSERT_TRUE(prepare_and_commit(*core, prepare, 5000, out).has_value());
  // The replica starts, and its limit counts, from the turn that starts it.
  ASSERT_TRUE(testing::executor_turn(*executor, *core, out, 5000, testing::deadline_in(60s)));
  ASSERT_TRUE(testing::wait_readable(reader, testing::deadline_in(60s)));
  char text[32] = {};
  ASSERT_GT(::read(reader, text, sizeof text - 1), 0);
  ::close(reader);
  const pid_t sleeper = static_cast<pid_t>(std::stol(text));
  const int sleeper_fd = testing::pidfd_open(sleeper);
  ASSERT_GE(sleeper_fd, 0) << "sleep " << sleeper << " is not running";
  const pid_t shell = executor->pid_of(ReplicaKey{7, 0});
  ASSERT_GT(shell, 0);

  core->expire_time_limits(5000 + 90 * 60'000 - 1, out);
  EXPECT_EQ(::kill(shell, 0), 0) << "still within its limit";
  core->expire_time_limits(5000 + 90 * 60'000, out);
  ASSERT_TRUE(run_until_over());
  EXPECT_EQ(final_update(out)->phase, "Failed");
  EXPECT_EQ(final_update(out)->message, "time limit (1h30m)");
  EXPECT_EQ(executor->pid_of(ReplicaKey{7, 0}), -1) << "the replica was reaped";
  EXPECT_EQ(core->running_count(), 0u);

  // The shell's background `sleep 1000` died with it: wait for it, then reap it.
  testing::expect_killed_and_reap(sleeper, sleeper_fd);
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
}

}  // namespace
}  // namespace gantry::agents
