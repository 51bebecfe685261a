// Real /bin/sh replicas through the agent core and the process executor:
// success, a failing replica, a split part's environment, cancel killing the
// whole process group, and replicas run as an unprivileged user (--run-as).
#include "agents/process_executor.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "agent_test_support.hpp"
#include "support/temp_dir.hpp"

namespace gantry::agents {
namespace {

using testing::make_prepare;
using testing::messages_of;
using testing::prepare_and_commit;
using namespace std::chrono_literals;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> shell(const std::string& script) {
  return {"/bin/sh", "-c", script};
}

struct ProcessExecutorTest : ::testing::Test {
  void SetUp() override { make_executor(std::nullopt); }
  void make_executor(std::optional<ReplicaUser> user) {
    executor = std::make_unique<ProcessExecutor>(work_dir, std::move(user));
    core = std::make_unique<AgentCore>("test", testing::small_inventory(), *executor);
  }
  void TearDown() override {
    core.reset();
    executor.reset();
  }

  // Feeds what started and ended to the core until `done` holds; false if the deadline
  // passes first (a broken test, not a measurement).
  bool run_until(const std::function<bool()>& done) {
    const auto deadline = testing::deadline_in(60s);
    while (!done()) {
      if (!testing::executor_turn(*executor, *core, out, 0, deadline)) return false;
    }
    return true;
  }
  std::optional<protocol::StatusUpdate> final_update() const {
    for (const auto& update : messages_of<protocol::StatusUpdate>(out)) {
      if (update.phase != "Running" && update.phase != "Pending") return update;
    }
    return std::nullopt;
  }
  bool over() const { return final_update().has_value(); }

  support::TempDir temp_dir{"gantry-agent-test"};
  const std::filesystem::path work_dir = temp_dir.path();
  std::unique_ptr<ProcessExecutor> executor;
  std::unique_ptr<AgentCore> core;
  Outbox out;
};

TEST_F(ProcessExecutorTest, SuccessfulReplicasCompleteWithTheirEnvironmentAndLogs) {
  protocol::Prepare dispatch =
      make_prepare(11, "hello",
                   {{"master", 1, 0, 1, {}, shell("echo master")},
                    {"worker",
                     2,
                     0,
                     1,
                     {},
                     shell("echo job=$GANTRY_JOB task=$GANTRY_TASK index=$GANTRY_REPLICA_INDEX "
                           "rank=$RANK world=$WORLD_SIZE addr=$MASTER_ADDR port=$MASTER_PORT "
                           "custom=$CUSTOM; echo to-stderr >&2")}});
  dispatch.job.tasks[1].containers[0].env = {{"CUSTOM", "from-spec"}};
  ASSERT_TRUE(prepare_and_commit(*core, dispatch, 0, out).has_value());

  ASSERT_TRUE(run_until([&] { return over(); }));
  EXPECT_EQ(final_update()->phase, "Completed");
  EXPECT_EQ(testing::task_status(*final_update(), "worker")->succeeded, 2);
  EXPECT_TRUE(out.usage_changed);
  EXPECT_EQ(core->running_count(), 0u);

  EXPECT_EQ(read_file(work_dir / "hello" / "master-0.log"), "master\n");
  const std::string worker1 = read_file(work_dir / "hello" / "worker-1.log");
  EXPECT_NE(worker1.find("job=hello task=worker index=1 rank=2 world=3 addr=127.0.0.1 port="),
            std::string::npos)
      << worker1;
  EXPECT_EQ(worker1.find("port= "), std::string::npos) << "MASTER_PORT is empty: " << worker1;
  EXPECT_NE(worker1.find("custom=from-spec"), std::string::npos) << worker1;
  EXPECT_NE(worker1.find("to-stderr"), std::string::npos) << worker1;
  // One rendezvous port for the whole dispatch.
  const std::string worker0 = read_file(work_dir / "hello" / "worker-0.log");
  const auto port_of = [](const std::string& log) {
    const auto at = log.find("port=") + 5;
    return log.substr(at, log.find(' ', at) - at);
  };
  EXPECT_EQ(port_of(worker0), port_of(worker1));
}

TEST_F(ProcessExecutorTest, ExitCodeThreeFailsTheJobNamingTheReplicaAndKillsTheRest) {
  const protocol::Prepare dispatch =
      make_prepare(12, "fails",
                   {{"master", 1, 0, 1, {}, shell("exec sleep 1000")},
                    {"worker", 1, 0, 1, {}, shell("exit 3")}});
  prepare_and_commit(*core, dispatch, 0, out);
  ASSERT_TRUE(run_until([&] { return over(); }));
  EXPECT_EQ(final_update()->phase, "Failed");
  EXPECT_EQ(final_update()->message, "replica worker-0 (rank 1) exited with code 3");
  EXPECT_EQ(testing::task_status(*final_update(), "master")->failed, 1);
  EXPECT_EQ(executor->pid_of(ReplicaKey{12, 0}), -1);  // the sleeping master was reaped
}

TEST_F(ProcessExecutorTest, CommandThatDoesNotExistFailsNamingTheReplica) {
  prepare_and_commit(*core,
                     make_prepare(13, "typo", {{"w", 1, 0, 1, {}, {"/nonexistent/gantry-binary"}}}),
                     0, out);
  ASSERT_TRUE(run_until([&] { return over(); }));
  EXPECT_EQ(final_update()->phase, "Failed");
  EXPECT_NE(final_update()->message.find("replica w-0 (rank 0) could not start"), std::string::npos)
      << final_update()->message;
}

// A Commit queues the part's replicas; each turn of the agent's loop starts
// one, so that hundreds of them never hold the loop. The part is Pending
// until its last replica runs.
TEST_F(ProcessExecutorTest, ACommitQueuesItsReplicasAndEachTurnStartsOne) {
  prepare_and_commit(
      *core, make_prepare(16, "queued", {{"w", 2, 0, 1, {}, shell("exec sleep 1000")}}), 0, out);
  EXPECT_EQ(messages_of<protocol::StatusUpdate>(out).back().phase, "Pending");
  EXPECT_EQ(executor->pid_of(ReplicaKey{16, 0}), -1);
  EXPECT_EQ(executor->next_deadline(), TimeMs{0}) << "a queued start is due at once";

  const auto deadline = testing::deadline_in(60s);
  ASSERT_TRUE(testing::executor_turn(*executor, *core, out, 0, deadline));
  EXPECT_GT(executor->pid_of(ReplicaKey{16, 0}), 0);
  EXPECT_EQ(executor->pid_of(ReplicaKey{16, 1}), -1);
  EXPECT_EQ(messages_of<protocol::StatusUpdate>(out).back().phase, "Pending");

  ASSERT_TRUE(testing::executor_turn(*executor, *core, out, 0, deadline));
  EXPECT_GT(executor->pid_of(ReplicaKey{16, 1}), 0);
  EXPECT_EQ(messages_of<protocol::StatusUpdate>(out).back().phase, "Running");
  EXPECT_EQ(executor->next_deadline(), std::nullopt);
}

// Cancelled before its turn, a queued replica never starts (it has no log,
// no record) and ends as stopped with the replica that did run.
TEST_F(ProcessExecutorTest, AReplicaStoppedBeforeItsTurnNeverStarts) {
  prepare_and_commit(*core, make_prepare(17, "cut", {{"w", 2, 0, 1, {}, shell("exec sleep 1000")}}),
                     0, out);
  ASSERT_TRUE(testing::executor_turn(*executor, *core, out, 0, testing::deadline_in(60s)));
  ASSERT_GT(executor->pid_of(ReplicaKey{17, 0}), 0);

  core->on_cancel(protocol::Cancel{17, "cut"}, out);
  ASSERT_TRUE(run_until([&] { return over(); }));
  EXPECT_EQ(final_update()->phase, "Aborted");
  EXPECT_EQ(testing::task_status(*final_update(), "w")->failed, 2);
  EXPECT_TRUE(std::filesystem::exists(work_dir / "cut" / "w-0.log"));
  EXPECT_FALSE(std::filesystem::exists(work_dir / "cut" / "w-1.log")) << "the queued one started";
  const RunStateDir state(work_dir / ".agent-state");
  EXPECT_TRUE(std::filesystem::exists(state.record_path(ReplicaKey{17, 0})));
  EXPECT_FALSE(std::filesystem::exists(state.record_path(ReplicaKey{17, 1})));
  EXPECT_EQ(executor->next_deadline(), std::nullopt);
}

TEST_F(ProcessExecutorTest, JobWithoutCommandIsRejected) {
  core->on_prepare(make_prepare(14, "nocmd", {{"w", 1}}), 0, out);
  const auto rejects = messages_of<protocol::Reject>(out);
  ASSERT_EQ(rejects.size(), 1u);
  EXPECT_NE(rejects[0].reason.find("containers[0].command"), std::string::npos)
      << rejects[0].reason;
}

std::map<std::string, std::string> environment_in(const std::filesystem::path& file) {
  std::map<std::string, std::string> env;
  std::istringstream lines(read_file(file));
  for (std::string line; std::getline(lines, line);) {
    const std::size_t equals = line.find('=');
    if (equals != std::string::npos) env[line.substr(0, equals)] = line.substr(equals + 1);
  }
  return env;
}

// Part 1 of a 2-part gang of 5 replicas (master + 4 workers), this part
// holding workers 2 and 3 (global ranks 3 and 4): each real replica writes its
// environment to a file, and it places the replica in the whole gang.
TEST_F(ProcessExecutorTest, ASplitPartsReplicasFormOneWorldWithTheOtherParts) {
  const std::filesystem::path out_dir = work_dir / "env";
  std::filesystem::create_directories(out_dir);
  const std::string write_env = "env > " + out_dir.string() + "/$GANTRY_TASK-$GANTRY_REPLICA_INDEX";
  protocol::Prepare prepare = make_prepare(
      21, "split",
      {{"master", 1, 0, 1, {}, shell(write_env)}, {"worker", 4, 0, 1, {}, shell(write_env)}});
  prepare.task_replicas = {{"worker", 2}};
  prepare.part = 1;
  prepare.parts = 2;
  prepare.epoch = 3;
  prepare.rank_offset = 3;
  prepare.world_size = 5;
  prepare.task_index_offsets = {{"master", 1}, {"worker", 2}};
  core->on_prepare(prepare, 0, out);
  const auto admits = messages_of<protocol::Admit>(out);
  ASSERT_EQ(admits.size(), 1u);
  EXPECT_EQ(admits[0].rendezvous_port, 0);  // part 0's agent names the rendezvous
  core->on_commit(protocol::Commit{21, "split", 1, "192.0.2.10", 29555}, 0, out);
  ASSERT_TRUE(run_until([&] { return over(); }));
  ASSERT_EQ(final_update()->phase, "Completed") << final_update()->message;

  for (int index : {2, 3}) {
    const auto env = environment_in(out_dir / ("worker-" + std::to_string(index)));
    EXPECT_EQ(env.at("RANK"), std::to_string(index + 1));  // rank_offset 3 + local rank
    EXPECT_EQ(env.at("WORLD_SIZE"), "5");
    EXPECT_EQ(env.at("GANTRY_REPLICA_INDEX"), std::to_string(index));
    EXPECT_EQ(env.at("MASTER_ADDR"), "192.0.2.10");
    EXPECT_EQ(env.at("MASTER_PORT"), "29555");
    EXPECT_EQ(env.at("GANTRY_CLUSTER"), "test");
    EXPECT_EQ(env.at("GANTRY_DISPATCH_ID"), "21");
    EXPECT_EQ(env.at("GANTRY_EPOCH"), "3");
    EXPECT_EQ(env.at("GANTRY_JOB"), "split");
    EXPECT_EQ(env.at("GANTRY_TASK"), "worker");
  }
  EXPECT_FALSE(std::filesystem::exists(out_dir / "master-0"));                // part 0's
  EXPECT_TRUE(std::filesystem::exists(work_dir / "split" / "worker-3.log"));  // by global index
}

TEST_F(ProcessExecutorTest, CancelKillsTheReplicasWholeProcessGroup) {
  // Orphans of this process come back to it, so the test can wait for the
  // replica's own child after its shell is gone.
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  const std::filesystem::path fifo = work_dir / "sleep.pid";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);

  prepare_and_commit(
      *core,
      make_prepare(
          15, "long",
          {{"w", 1, 0, 1, {}, shell("sleep 1000 & echo $! > " + fifo.string() + "; wait")}}),
      0, out);
  ASSERT_TRUE(testing::executor_turn(*executor, *core, out, 0, testing::deadline_in(60s)));
  ASSERT_TRUE(testing::wait_readable(reader, testing::deadline_in(60s)));
  char text[32] = {};
  ASSERT_GT(::read(reader, text, sizeof text - 1), 0);
  ::close(reader);
  const pid_t sleeper = static_cast<pid_t>(std::stol(text));
  const int sleeper_fd = testing::pidfd_open(sleeper);
  ASSERT_GE(sleeper_fd, 0) << "sleep " << sleeper << " is not running";

  core->on_cancel(protocol::Cancel{15, "long"}, out);
  ASSERT_TRUE(run_until([&] { return over(); }));
  EXPECT_EQ(final_update()->phase, "Aborted");

  // The shell's background `sleep 1000` died with it: wait for it, then reap it.
  testing::expect_killed_and_reap(sleeper, sleeper_fd);
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
}

// --run-as nobody: switching users takes root, which this suite runs as (CI too).
struct ProcessExecutorAsNobodyTest : ProcessExecutorTest {
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "running replicas as another user needs root";
    // The work directory's parent is mkdtemp's (0700): nobody may pass
    // through it to the plugin files, as it could through /var/lib.
    std::filesystem::permissions(work_dir, std::filesystem::perms::others_exec,
                                 std::filesystem::perm_options::add);
    make_executor(find_replica_user("nobody"));
  }
  // The uid owning `path`.
  static uid_t owner_of(const std::filesystem::path& path) {
    struct stat status = {};
    EXPECT_EQ(::lstat(path.c_str(), &status), 0) << path;
    return status.st_uid;
  }
};

TEST_F(ProcessExecutorAsNobodyTest, ReplicasRunAsTheUserWithItsNameAndHomeAndOwnTheirLogs) {
  prepare_and_commit(
      *core,
      make_prepare(31, "who",
                   {{"w", 1, 0, 1, {}, shell("id -u; id -g; echo $HOME $USER $LOGNAME")}}),
      0, out);
  ASSERT_TRUE(run_until([&] { return over(); }));
  EXPECT_EQ(final_update()->phase, "Completed") << final_update()->message;
  EXPECT_EQ(read_file(work_dir / "who" / "w-0.log"), "65534\n65534\n/nonexistent nobody nobody\n");
  EXPECT_EQ(owner_of(work_dir / "who" / "w-0.log"), 65534u);
  EXPECT_EQ(owner_of(work_dir / "who"), 0u) << "the job's directory stays the agent's";
}

TEST_F(ProcessExecutorAsNobodyTest, PluginFilesAreTheUsersToRead) {
  const std::string check =
      "test \"$(stat -c %u $GANTRY_SSH_DIR/id_rsa)\" = 65534 && "
      "test -r $GANTRY_SSH_DIR/id_rsa && test -r $GANTRY_VOLCANO_DIR/w.host";
  protocol::Prepare prepare = make_prepare(32, "mpi", {{"w", 1, 0, 1, {}, shell(check)}});
  prepare.job.plugins["ssh"] = {};
  prepare.job.plugins["svc"] = {};
  prepare_and_commit(*core, prepare, 0, out);
  ASSERT_TRUE(run_until([&] { return over(); }));
  EXPECT_EQ(final_update()->phase, "Completed")
      << final_update()->message << read_file(work_dir / "mpi" / "w-0.log");
}

// The program is looked up and executed as the replica's user: one only
// root may run does not start, and the replica's failure says why.
TEST_F(ProcessExecutorAsNobodyTest, AProgramOnlyRootMayRunFailsTheReplicaSayingWhy) {
  const std::filesystem::path program = work_dir / "root-only.sh";
  std::ofstream(program) << "#!/bin/sh\ntrue\n";
  std::filesystem::permissions(program, std::filesystem::perms::owner_all);
  prepare_and_commit(*core, make_prepare(33, "denied", {{"w", 1, 0, 1, {}, {program.string()}}}), 0,
                     out);
  ASSERT_TRUE(run_until([&] { return over(); }));
  EXPECT_EQ(final_update()->phase, "Failed");
  EXPECT_NE(
      final_update()->message.find("could not start: " + program.string() + ": Permission denied"),
      std::string::npos)
      << final_update()->message;
}

}  // namespace
}  // namespace gantry::agents
