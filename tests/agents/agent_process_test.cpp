// The real gantry-agent binary as a child process: it registers with a hub
// played by the test, runs a real process replica (as nobody, --run-as), and
// on SIGTERM kills that replica and exits 0. Bad input ends it with an error
// naming the field; so does an agent that would run replicas as root.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "agent_test_support.hpp"
#include "fake_hub.hpp"
#include "support/curve_keys.hpp"
#include "support/temp_dir.hpp"

extern char** environ;

namespace gantry::agents {
namespace {

using namespace std::chrono_literals;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct AgentProcessTest : ::testing::Test {
  void TearDown() override {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }

  void spawn(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {GANTRY_AGENT_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> argv_c;
    for (std::string& arg : argv) argv_c.push_back(arg.data());
    argv_c.push_back(nullptr);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, (dir / "agent.log").c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&files, STDOUT_FILENO, STDERR_FILENO);
    const int rc = ::posix_spawn(&pid, argv_c[0], &files, nullptr, argv_c.data(), environ);
    posix_spawn_file_actions_destroy(&files);
    ASSERT_EQ(rc, 0) << GANTRY_AGENT_BINARY;
  }

  // The agent's exit status, waiting (with a deadline) for it to end.
  int wait_exit() {
    const int fd = testing::pidfd_open(pid);
    EXPECT_GE(fd, 0);
    EXPECT_TRUE(testing::wait_readable(fd, testing::deadline_in(60s))) << "the agent never exited";
    ::close(fd);
    int status = 0;
    EXPECT_EQ(::waitpid(pid, &status, 0), pid);
    pid = -1;
    return status;
  }

  // What a refused start printed; the agent exited with status 2.
  std::string refusal_of(const std::vector<std::string>& args) {
    std::ofstream(dir / "inventory.yaml")
        << "cluster: {name: refused}\nnodes:\n  - name: n0\n    allocatable: {cpu: 4}\n";
    std::vector<std::string> argv = {
        "--hub",      "tcp://127.0.0.1:1", "--inventory", (dir / "inventory.yaml").string(),
        "--executor", "process",           "--work-dir",  (dir / "work").string(), "--insecure"};
    argv.insert(argv.end(), args.begin(), args.end());
    spawn(argv);
    const int status = wait_exit();
    const std::string log = read_file(dir / "agent.log");
    EXPECT_TRUE(WIFEXITED(status)) << log;
    EXPECT_EQ(WEXITSTATUS(status), 2) << log;
    return log;
  }

  testing::Received start_registered(testing::FakeHub& hub, int cpus);
  support::CurveKeyPair hub_keys();

  support::TempDir temp_dir{"gantry-agent-bin"};
  const std::filesystem::path dir = temp_dir.path();
  pid_t pid = -1;
};

// Switching to another user takes root, which this suite runs as (CI too).
#define SKIP_UNLESS_ROOT() \
  if (::geteuid() != 0) GTEST_SKIP() << "only an agent running as root can switch users"

// Encrypted, as by default: the hub's public key and the agent's keypair.
// An agent of cluster "bin" with one node of `cpus` CPUs, running replicas
// as nobody, registered with `hub`, which holds the keys of "hub" under
// dir/keys (hub_keys()). Returns the Hello.
testing::Received AgentProcessTest::start_registered(testing::FakeHub& hub, int cpus) {
  support::write_key_files(support::generate_curve_keypair("bin-agent"), dir / "keys");
  std::ofstream(dir / "inventory.yaml") << "cluster: {name: bin}\nnodes:\n  - name: n0\n    "
                                           "allocatable: {cpu: "
                                        << cpus << ", memory: 8Gi}\n";
  // nobody reaches the fifo through mkdtemp's directory (0700) and writes to it.
  std::filesystem::permissions(dir, std::filesystem::perms::others_exec,
                               std::filesystem::perm_options::add);
  spawn({"--hub", hub.endpoint(), "--hub-key", (dir / "keys/hub.pub").string(), "--key",
         (dir / "keys/bin-agent.key").string(), "--inventory", (dir / "inventory.yaml").string(),
         "--executor", "process", "--run-as", "nobody", "--work-dir", (dir / "work").string(),
         "--log-level", "debug", "--advertise-address", "127.0.0.2"});
  const testing::Received hello = hub.next(1);
  EXPECT_EQ(hello.type, protocol::MessageType::kHello) << read_file(dir / "agent.log");
  hub.send(hello.identity, protocol::encode(protocol::Welcome{1, 600'000, 3}));
  EXPECT_EQ(hub.next_as<protocol::UsageReport>(1).nodes.size(), 1u);
  return hello;
}

support::CurveKeyPair AgentProcessTest::hub_keys() {
  const support::CurveKeyPair keys = support::generate_curve_keypair("hub");
  support::write_key_files(keys, dir / "keys");
  return keys;
}

TEST_F(AgentProcessTest, RunsAProcessReplicaAndOnSigtermKillsItAndExitsZero) {
  SKIP_UNLESS_ROOT();
  testing::FakeHub hub(hub_keys());
  const testing::Received hello = start_registered(hub, 4);
  ASSERT_EQ(hello.type, protocol::MessageType::kHello);
  EXPECT_TRUE(std::regex_match(hello.identity, std::regex("agent/bin/[0-9a-f]{16}")))
      << hello.identity;

  const std::filesystem::path fifo = dir / "replica.pid";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::filesystem::permissions(fifo, std::filesystem::perms::others_write,
                               std::filesystem::perm_options::add);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  hub.send(hello.identity,
           protocol::encode(testing::make_prepare(
               1, "sleeper",
               {{"w",
                 1,
                 0,
                 1,
                 {},
                 {"/bin/sh", "-c", "echo $$ > " + fifo.string() + "; exec sleep 1000"}}})));
  const auto admit = hub.next_as<protocol::Admit>(1);
  EXPECT_EQ(admit.dispatch_id, 1u);
  EXPECT_EQ(admit.rendezvous_host, "127.0.0.2");  // --advertise-address
  EXPECT_GT(admit.rendezvous_port, 0);            // the process executor picked one
  EXPECT_EQ(hub.next_as<protocol::UsageReport>(1).accounted_dispatches,
            (std::vector<std::uint64_t>{1}));
  hub.send(hello.identity, protocol::encode(testing::commit_for(admit)));
  // Pending until its supervisor has started it, on the agent's next turn.
  EXPECT_EQ(hub.next_as<protocol::StatusUpdate>(1).phase, "Pending");
  EXPECT_EQ(hub.next_as<protocol::StatusUpdate>(1).phase, "Running");

  ASSERT_TRUE(testing::wait_readable(reader, testing::deadline_in(60s)));
  char text[32] = {};
  ASSERT_GT(::read(reader, text, sizeof text - 1), 0);
  ::close(reader);
  const int replica = testing::pidfd_open(static_cast<pid_t>(std::stol(text)));
  ASSERT_GE(replica, 0);

  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  const int status = wait_exit();
  ASSERT_TRUE(WIFEXITED(status)) << read_file(dir / "agent.log");
  EXPECT_EQ(WEXITSTATUS(status), 0) << read_file(dir / "agent.log");
  // The agent reaped its replica before exiting, so its pidfd already reads
  // as exited: no waiting needed.
  pollfd item{replica, POLLIN, 0};
  EXPECT_EQ(::poll(&item, 1, 0), 1) << "the replica outlived its agent";
  ::close(replica);
}

// A Commit of many replicas does not hold the agent while they start (one
// per turn of its loop): the hub's next Prepare is answered while the part
// is still Pending, and the part runs once every replica does. An agent
// that started them all before reading on (as it once did) answers only
// after it reported the part Running.
TEST_F(AgentProcessTest, ThePrepareAfterAWideCommitIsAnsweredBeforeItsReplicasAllRun) {
  SKIP_UNLESS_ROOT();
  constexpr int kReplicas = 50;
  testing::FakeHub hub(hub_keys());
  const std::string agent = start_registered(hub, kReplicas + 1).identity;
  const std::vector<std::string> sleep = {"/bin/sh", "-c", "exec sleep 1000"};
  hub.send(agent,
           protocol::encode(testing::make_prepare(1, "wide", {{"w", kReplicas, 0, 1, {}, sleep}})));
  const auto admit = hub.next_as<protocol::Admit>(1);
  hub.next_as<protocol::UsageReport>(1);
  hub.send(agent, protocol::encode(testing::commit_for(admit)));
  hub.send(agent, protocol::encode(testing::make_prepare(2, "next", {{"w", 1, 0, 1, {}, sleep}})));

  for (bool answered = false; !answered;) {
    const testing::Received received = hub.next(1);
    if (received.type == protocol::MessageType::kAdmit) {
      EXPECT_EQ(testing::decode_as<protocol::Admit>(received).dispatch_id, 2u);
      answered = true;
    } else if (received.type == protocol::MessageType::kStatusUpdate) {
      EXPECT_EQ(testing::decode_as<protocol::StatusUpdate>(received).phase, "Pending");
    }
  }
  for (bool running = false; !running;) {
    const testing::Received received = hub.next(1);
    if (received.type != protocol::MessageType::kStatusUpdate) continue;
    const auto update = testing::decode_as<protocol::StatusUpdate>(received);
    ASSERT_EQ(update.dispatch_id, 1u);
    ASSERT_NE(update.phase, "Failed") << update.message;
    running = update.phase == "Running";
  }

  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  const int status = wait_exit();
  ASSERT_TRUE(WIFEXITED(status)) << read_file(dir / "agent.log");
  EXPECT_EQ(WEXITSTATUS(status), 0) << read_file(dir / "agent.log");
}

// An agent that dies between its Admit and the Commit: status 3, and the
// Admit reached the hub before it went.
TEST_F(AgentProcessTest, TestFaultExitAfterAdmitExitsWithStatusThreeAfterTheAdmit) {
  testing::FakeHub hub;
  std::ofstream(dir / "inventory.yaml")
      << "cluster: {name: dies}\nnodes:\n  - name: n0\n    allocatable: {cpu: 4, memory: 8Gi}\n";
  spawn({"--hub", hub.endpoint(), "--insecure", "--inventory", (dir / "inventory.yaml").string(),
         "--test-fault", "exit-after-admit"});
  const testing::Received hello = hub.next(1);
  ASSERT_EQ(hello.type, protocol::MessageType::kHello) << read_file(dir / "agent.log");
  hub.send(hello.identity, protocol::encode(protocol::Welcome{1, 600'000, 3}));
  EXPECT_EQ(hub.next_as<protocol::UsageReport>(1).cluster, "dies");
  hub.send(hello.identity, protocol::encode(testing::make_prepare(9, "doomed", {{"w", 1}})));
  EXPECT_EQ(hub.next_as<protocol::Admit>(1).dispatch_id, 9u);

  const int status = wait_exit();
  ASSERT_TRUE(WIFEXITED(status)) << read_file(dir / "agent.log");
  EXPECT_EQ(WEXITSTATUS(status), 3) << read_file(dir / "agent.log");
  EXPECT_NE(read_file(dir / "agent.log").find("exit-after-admit"), std::string::npos);
}

TEST_F(AgentProcessTest, BadInventoryEndsWithAnErrorNamingTheField) {
  std::ofstream(dir / "inventory.yaml") << "nodes:\n  - name: n0\n    allocatable: {cpu: many}\n";
  spawn({"--hub", "tcp://127.0.0.1:1", "--insecure", "--cluster", "x", "--inventory",
         (dir / "inventory.yaml").string()});
  const int status = wait_exit();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  const std::string log = read_file(dir / "agent.log");
  EXPECT_NE(log.find("nodes[0].allocatable.cpu"), std::string::npos) << log;
  EXPECT_NE(log.find("many"), std::string::npos) << log;
}

TEST_F(AgentProcessTest, AReplicaRunAsNobodyReportsNobodysUid) {
  SKIP_UNLESS_ROOT();
  testing::FakeHub hub;
  std::ofstream(dir / "inventory.yaml")
      << "cluster: {name: who}\nnodes:\n  - name: n0\n    allocatable: {cpu: 4}\n";
  spawn({"--hub", hub.endpoint(), "--insecure", "--inventory", (dir / "inventory.yaml").string(),
         "--executor", "process", "--run-as", "nobody", "--work-dir", (dir / "work").string()});
  const testing::Received hello = hub.next(1);
  ASSERT_EQ(hello.type, protocol::MessageType::kHello) << read_file(dir / "agent.log");
  hub.send(hello.identity, protocol::encode(protocol::Welcome{1, 600'000, 3}));
  hub.next_as<protocol::UsageReport>(1);
  hub.send(hello.identity, protocol::encode(testing::make_prepare(
                               1, "whoami", {{"w", 1, 0, 1, {}, {"id", "-u"}}})));
  const auto admit = hub.next_as<protocol::Admit>(1);
  hub.send(hello.identity, protocol::encode(testing::commit_for(admit)));
  // Usage reports come between the updates; the run ends with a final one.
  std::string phase;
  while (phase.empty() || phase == "Pending" || phase == "Running") {
    const testing::Received received = hub.next(1);
    if (received.type == protocol::MessageType::kStatusUpdate)
      phase = testing::decode_as<protocol::StatusUpdate>(received).phase;
  }
  EXPECT_EQ(phase, "Completed") << read_file(dir / "agent.log");
  EXPECT_EQ(read_file(dir / "work" / "whoami" / "w-0.log"), "65534\n");
}

TEST_F(AgentProcessTest, AnAgentRunningAsRootRefusesToStartWithoutRunAsOrAllowRoot) {
  SKIP_UNLESS_ROOT();
  const std::string log = refusal_of({});
  EXPECT_NE(log.find("give --run-as USER"), std::string::npos) << log;
  EXPECT_NE(log.find("--allow-root"), std::string::npos) << log;
}

TEST_F(AgentProcessTest, RunAsRootIsRefusedWithoutAllowRoot) {
  const std::string log = refusal_of({"--run-as", "root"});
  EXPECT_NE(log.find("--run-as root: replicas would run as root"), std::string::npos) << log;
  EXPECT_NE(log.find("--allow-root"), std::string::npos) << log;
}

TEST_F(AgentProcessTest, AnUnknownRunAsUserIsRefusedAtStartByName) {
  const std::string log = refusal_of({"--run-as", "no-such-gantry-user"});
  EXPECT_NE(log.find("--run-as no-such-gantry-user: no such user"), std::string::npos) << log;
}

TEST_F(AgentProcessTest, WithoutKeysOrInsecureItRefusesToStartNamingTheFlags) {
  std::ofstream(dir / "inventory.yaml")
      << "cluster: {name: bare}\nnodes:\n  - name: n0\n    allocatable: {cpu: 4, memory: 8Gi}\n";
  spawn({"--hub", "tcp://127.0.0.1:1", "--inventory", (dir / "inventory.yaml").string()});
  const int status = wait_exit();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  const std::string log = read_file(dir / "agent.log");
  for (const char* named : {"--hub-key", "--key", "GANTRY_HUB_KEY", "GANTRY_KEY", "--insecure"}) {
    EXPECT_NE(log.find(named), std::string::npos) << named << " in: " << log;
  }
}

}  // namespace
}  // namespace gantry::agents
