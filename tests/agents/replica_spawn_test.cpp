// A replica whose user cannot be taken fails to start with a message naming
// the user and the step, and leaves no child behind.
#include "agents/replica_spawn.hpp"

#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>

namespace gantry::agents {
namespace {

// What spawn_replica says when the agent has no right to switch users: the
// test forks, becomes nobody itself, and asks for daemon (uid 1).
TEST(ReplicaSpawn, AnAgentThatCannotSwitchUsersFailsTheReplicaNamingUserAndStep) {
  if (::geteuid() != 0) GTEST_SKIP() << "the test becomes nobody first, which needs root";
  const ReplicaUser daemon = find_replica_user("daemon");
  const ReplicaUser nobody = find_replica_user("nobody");
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // the unprivileged "agent"
    ::close(pipe_fds[0]);
    std::string said = "spawned";
    if (::setgroups(0, nullptr) != 0 || ::setgid(nobody.gid) != 0 || ::setuid(nobody.uid) != 0) {
      said = "could not become nobody";
    } else {
      const int log = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
      try {
        spawn_replica({"true"}, {}, log, &daemon);
      } catch (const std::runtime_error& failure) {
        said = failure.what();
      }
    }
    [[maybe_unused]] const ssize_t ignored = ::write(pipe_fds[1], said.data(), said.size());
    // Any child spawn_replica left would be reaped here and fail the check below.
    ::_exit(::waitpid(-1, nullptr, WNOHANG) == -1 ? 0 : 1);
  }
  ::close(pipe_fds[1]);
  std::string said;
  char buffer[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) said.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_EQ(said,
            "cannot run as daemon (uid 1, gid 1): setgroups: Operation not permitted (switching "
            "users needs root, or CAP_SETUID and CAP_SETGID)");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a child was left behind";
}

}  // namespace
}  // namespace gantry::agents
