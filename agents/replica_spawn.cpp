#include "agents/replica_spawn.hpp"

#include <fcntl.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>

namespace gantry::agents {

namespace {

// The steps the child can fail at, sent back with errno over a pipe.
enum class ChildStep : int {
  kProcessGroup,
  kSignals,
  kStdin,
  kOutput,
  kSetgroups,
  kSetgid,
  kSetuid,
  kExec,
};

struct ChildFailure {
  ChildStep step;
  int error;
};

const char* step_name(ChildStep step) {
  switch (step) {
    case ChildStep::kProcessGroup:
      return "setpgid";
    case ChildStep::kSignals:
      return "resetting signals";
    case ChildStep::kStdin:
      return "opening /dev/null";
    case ChildStep::kOutput:
      return "redirecting output to the log";
    case ChildStep::kSetgroups:
      return "setgroups";
    case ChildStep::kSetgid:
      return "setgid";
    case ChildStep::kSetuid:
      return "setuid";
    case ChildStep::kExec:
      return "exec";
  }
  return "?";
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// From here on the child of a multi-threaded process: async-signal-safe
// calls only, nothing that allocates or locks.
[[noreturn]] void fail_in_child(int report_fd, ChildStep step) {
  const ChildFailure failure{step, errno};
  [[maybe_unused]] const ssize_t ignored = ::write(report_fd, &failure, sizeof failure);
  ::_exit(127);
}

// A replica starts as a container would: no inherited ignored signals (the
// agent ignores SIGPIPE) or blocked ones.
bool reset_signals() {
  struct sigaction defaults = {};
  defaults.sa_handler = SIG_DFL;
  sigemptyset(&defaults.sa_mask);
  for (int signal = 1; signal < NSIG; ++signal) {
    if (signal == SIGKILL || signal == SIGSTOP) continue;
    ::sigaction(signal, &defaults, nullptr);  // fails harmlessly for glibc's reserved signals
  }
  sigset_t none;
  sigemptyset(&none);
  return ::sigprocmask(SIG_SETMASK, &none, nullptr) == 0;
}

// dup2 onto itself is a no-op that keeps FD_CLOEXEC: an agent started with
// its stdout closed may have been given the log as fd 1 or 2.
bool redirect(int from, int to) {
  if (from == to) return ::fcntl(to, F_SETFD, 0) == 0;
  return ::dup2(from, to) >= 0;
}

// Its own group, so that killing the replica kills whatever it started; or a
// session of its own (a run supervisor), which no hangup of the agent's
// session reaches.
bool leave_parent_group(bool own_session) {
  return own_session ? ::setsid() >= 0 : ::setpgid(0, 0) == 0;
}

[[noreturn]] void become_replica(char* const* argv, char* const* env, const ProcessIo& io,
                                 const ReplicaUser* user, int report_fd) {
  if (!leave_parent_group(io.own_session)) fail_in_child(report_fd, ChildStep::kProcessGroup);
  if (!reset_signals()) fail_in_child(report_fd, ChildStep::kSignals);
  // Output first: were the log fd 0, stdin would replace it.
  if (!redirect(io.output_fd, STDOUT_FILENO) || !redirect(io.output_fd, STDERR_FILENO))
    fail_in_child(report_fd, ChildStep::kOutput);
  const int input_fd = io.input_fd >= 0 ? io.input_fd : ::open("/dev/null", O_RDONLY);
  if (input_fd < 0 || !redirect(input_fd, STDIN_FILENO))
    fail_in_child(report_fd, ChildStep::kStdin);
  if (io.input_fd < 0 && input_fd != STDIN_FILENO) ::close(input_fd);
  if (user != nullptr) {
    if (::setgroups(user->groups.size(), user->groups.data()) != 0)
      fail_in_child(report_fd, ChildStep::kSetgroups);
    if (::setgid(user->gid) != 0) fail_in_child(report_fd, ChildStep::kSetgid);
    if (::setuid(user->uid) != 0) fail_in_child(report_fd, ChildStep::kSetuid);
  }
  // PATH is searched as the replica's user, with the agent's PATH (as
  // posix_spawnp did).
  ::execvpe(argv[0], argv, env);
  fail_in_child(report_fd, ChildStep::kExec);
}

std::string describe(const ChildFailure& failure, const std::string& program,
                     const ReplicaUser* user) {
  const std::string reason = std::strerror(failure.error);
  if (failure.step == ChildStep::kExec) return program + ": " + reason;
  const bool identity = failure.step == ChildStep::kSetgroups ||
                        failure.step == ChildStep::kSetgid || failure.step == ChildStep::kSetuid;
  if (identity && user != nullptr) {
    return "cannot run as " + user->name + " (uid " + std::to_string(user->uid) + ", gid " +
           std::to_string(user->gid) + "): " + step_name(failure.step) + ": " + reason +
           (failure.error == EPERM ? " (switching users needs root, or CAP_SETUID and CAP_SETGID)"
                                   : "");
  }
  return program + ": " + step_name(failure.step) + ": " + reason;
}

// Waits for the child's report: end of file once exec closed the pipe (the
// replica runs), or a ChildFailure.
bool read_failure(int report_fd, ChildFailure& failure) {
  auto* bytes = reinterpret_cast<char*>(&failure);
  std::size_t got = 0;
  while (got < sizeof failure) {
    const ssize_t n = ::read(report_fd, bytes + got, sizeof failure - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  return got == sizeof failure;
}

void reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

pid_t spawn_replica(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                    int output_fd, const ReplicaUser* user) {
  return spawn_process(argv, env, ProcessIo{output_fd}, user);
}

pid_t spawn_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                    const ProcessIo& io, const ReplicaUser* user) {
  if (argv.empty()) throw std::runtime_error("the container has no command");
  // Everything the child needs is built before fork.
  std::vector<std::string> argv_copy = argv;
  std::vector<std::string> env_copy = env;
  const std::vector<char*> argv_c = c_strings(argv_copy);
  const std::vector<char*> env_c = c_strings(env_copy);
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("cannot start the replica: pipe: ") +
                             std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    ::close(report[0]);
    ::close(report[1]);
    throw std::runtime_error(std::string("cannot start the replica: fork: ") +
                             std::strerror(error));
  }
  if (pid == 0) {
    ::close(report[0]);
    become_replica(argv_c.data(), env_c.data(), io, user, report[1]);
  }
  ::close(report[1]);
  ChildFailure failure{};
  const bool failed = read_failure(report[0], failure);
  ::close(report[0]);
  if (!failed) return pid;
  reap(pid);
  throw std::runtime_error(describe(failure, argv.front(), user));
}

}  // namespace gantry::agents
