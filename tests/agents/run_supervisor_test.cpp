// The run supervisor (the real gantry-run-supervisor) and the process
// executor's re-attach: a run started under a supervisor is found by a new
// executor on the same state directory, running or with its real end; a
// supervisor whose agent's contact is older than the fence timeout fences
// its run.
#include "agents/run_supervisor.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <fstream>

#include "agent_test_support.hpp"
#include "agents/process_executor.hpp"
#include "agents/replica_spawn.hpp"
#include "agents/run_records.hpp"
#include "support/temp_dir.hpp"

extern char** environ;

namespace gantry::agents {
namespace {

using namespace std::chrono_literals;

std::vector<std::string> own_environment() {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) env.emplace_back(*entry);
  return env;
}

struct Supervised {
  pid_t supervisor = -1;
  pid_t replica = -1;
};

// What the process executor does, by hand: so that the supervisor outlives
// the executor that would otherwise kill it on shutdown (an agent's crash).
struct RunSupervisorTest : ::testing::Test {
  Supervised start(const ReplicaKey& key, const std::string& script, std::int64_t fence_after_ms) {
    int control[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, control), 0);
    const int log = ::open((temp.path() / "replica.log").c_str(),
                           O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    SupervisorOptions options{state.exit_path(key),
                              state.contact_path(),
                              fence_after_ms,
                              std::nullopt,
                              {"/bin/sh", "-c", script}};
    Supervised started;
    started.supervisor = spawn_process(supervisor_argv(GANTRY_SUPERVISOR_BINARY, options), {},
                                       ProcessIo{log, control[1], true}, nullptr);
    ::close(control[1]);
    ::close(log);
    state.write_record(RunRecord{key, "job", "worker", "node-a", 0, 1, static_cast<int>(key.rank),
                                 started.supervisor, process_start_time(started.supervisor)});
    started.replica = start_supervised(control[0], own_environment());
    ::close(control[0]);
    return started;
  }
  // Waits for the supervisor to end and reaps it: its exit file is written then.
  void wait_for_end(pid_t supervisor) {
    const int pidfd = testing::pidfd_open(supervisor);
    ASSERT_GE(pidfd, 0);
    ASSERT_TRUE(testing::wait_readable(pidfd, testing::deadline_in(60s)));
    ::close(pidfd);
    int status = 0;
    ASSERT_EQ(::waitpid(supervisor, &status, 0), supervisor);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::filesystem::path release() const { return temp.path() / "release"; }
  std::string wait_for_release() const {
    return "while [ ! -e " + release().string() + " ]; do sleep 0.02; done; exit 7";
  }

  support::TempDir temp{"gantry-run-supervisor"};
  RunStateDir state{temp.path() / "state"};
};

TEST_F(RunSupervisorTest, ArgumentsRoundTrip) {
  const SupervisorOptions options{
      "/s/1-0.exit", "/s/contact", 1500, std::nullopt, {"python3", "--", "train.py"}};
  const std::vector<std::string> argv = supervisor_argv("/bin/gantry-run-supervisor", options);
  const SupervisorOptions parsed =
      parse_supervisor_args(std::vector<std::string>(argv.begin() + 1, argv.end()));
  EXPECT_EQ(parsed.exit_file, options.exit_file);
  EXPECT_EQ(parsed.contact_file, options.contact_file);
  EXPECT_EQ(parsed.fence_after_ms, 1500);
  EXPECT_EQ(parsed.argv, options.argv);
  EXPECT_THROW(parse_supervisor_args({"--exit-file", "x"}), std::invalid_argument);
}

TEST_F(RunSupervisorTest, ARunThatEndedWithoutItsAgentIsReportedWithItsRealExitCode) {
  const Supervised run = start(ReplicaKey{5, 0}, "exit 3", 0);
  wait_for_end(run.supervisor);

  ProcessExecutor restarted(temp.path(), std::nullopt, state.dir());
  const std::vector<AdoptedReplica> adopted = restarted.adopt();
  ASSERT_EQ(adopted.size(), 1u);
  EXPECT_EQ(adopted[0].key, (ReplicaKey{5, 0}));
  EXPECT_EQ(adopted[0].job, "job");
  EXPECT_EQ(adopted[0].task, "worker");
  EXPECT_TRUE(adopted[0].ended);
  EXPECT_EQ(adopted[0].exit_code, 3);
}

TEST_F(RunSupervisorTest, ARestartedExecutorReattachesToALiveRunAndCollectsItsEnd) {
  const Supervised run = start(ReplicaKey{6, 1}, wait_for_release(), 0);
  // The supervisor is this test's child, as it was the crashed agent's: the
  // new executor may not reap it, so the test does.
  ProcessExecutor restarted(temp.path(), std::nullopt, state.dir());
  const std::vector<AdoptedReplica> adopted = restarted.adopt();
  ASSERT_EQ(adopted.size(), 1u);
  EXPECT_FALSE(adopted[0].ended);
  EXPECT_EQ(::kill(run.replica, 0), 0) << "the replica was left running";

  std::ofstream(release()) << "go";
  std::vector<ReplicaExit> exits;
  while (exits.empty()) {
    ASSERT_TRUE(testing::wait_readable(restarted.wake_fd(), testing::deadline_in(60s)));
    restarted.collect_exits(0, exits);
  }
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].key, (ReplicaKey{6, 1}));
  EXPECT_EQ(exits[0].exit_code, 7);
  EXPECT_EQ(exits[0].signal, 0);
  wait_for_end(run.supervisor);
}

TEST_F(RunSupervisorTest, ARunWhoseSupervisorVanishedEndsKilled) {
  const Supervised run = start(ReplicaKey{8, 0}, wait_for_release(), 0);
  ::kill(run.supervisor, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(run.supervisor, &status, 0), run.supervisor);
  ::kill(-run.replica, SIGKILL);  // what a lost supervisor leaves is not the test's point

  ProcessExecutor restarted(temp.path(), std::nullopt, state.dir());
  const std::vector<AdoptedReplica> adopted = restarted.adopt();
  ASSERT_EQ(adopted.size(), 1u);
  EXPECT_TRUE(adopted[0].ended);
  EXPECT_EQ(adopted[0].exit_code, 128 + SIGKILL);
}

TEST_F(RunSupervisorTest, AContactOlderThanTheLeaseFencesTheRun) {
  state.write_contact(monotonic_ms());
  const Supervised run = start(ReplicaKey{9, 0}, "exec sleep 1000", 200);
  // No agent confirms any contact from here on: the fence timeout runs out.
  wait_for_end(run.supervisor);
  const std::optional<RunEnd> end = read_run_end(state.exit_path(ReplicaKey{9, 0}));
  ASSERT_TRUE(end.has_value());
  EXPECT_TRUE(end->fenced);
  EXPECT_EQ(end->signal, SIGTERM);
  EXPECT_EQ(end->exit_code, 128 + SIGTERM);
}

// The supervisor may run as root: the job's environment (an LD_PRELOAD)
// reaches only the replica, never the supervisor's own exec.
TEST_F(RunSupervisorTest, TheSupervisorItselfRunsWithoutTheJobsEnvironment) {
  const std::filesystem::path seen = temp.path() / "seen";
  const Supervised run = start(ReplicaKey{10, 0},
                               "tr '\\0' '\\n' < /proc/$PPID/environ > " + seen.string() +
                                   ".supervisor; env > " + seen.string() + ".replica",
                               0);
  wait_for_end(run.supervisor);
  std::ifstream supervisor_env(seen.string() + ".supervisor");
  std::ifstream replica_env(seen.string() + ".replica");
  const std::string supervisor_text((std::istreambuf_iterator<char>(supervisor_env)), {});
  const std::string replica_text((std::istreambuf_iterator<char>(replica_env)), {});
  EXPECT_EQ(supervisor_text, "");
  EXPECT_NE(replica_text.find("PATH="), std::string::npos) << replica_text;
}

TEST_F(RunSupervisorTest, ASupervisorToldNothingStartsNothing) {
  int control[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, control), 0);
  const std::filesystem::path marker = temp.path() / "ran";
  SupervisorOptions options{state.exit_path(ReplicaKey{1, 0}),
                            state.contact_path(),
                            0,
                            std::nullopt,
                            {"/bin/sh", "-c", "touch " + marker.string()}};
  const int log = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  const pid_t supervisor = spawn_process(supervisor_argv(GANTRY_SUPERVISOR_BINARY, options), {},
                                         ProcessIo{log, control[1], true}, nullptr);
  ::close(control[1]);
  ::close(log);
  ::close(control[0]);  // the agent died before recording the run
  wait_for_end(supervisor);
  EXPECT_FALSE(std::filesystem::exists(marker));
  EXPECT_FALSE(std::filesystem::exists(state.exit_path(ReplicaKey{1, 0})));
}

}  // namespace
}  // namespace gantry::agents
