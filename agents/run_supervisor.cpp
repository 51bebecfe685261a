#include "agents/run_supervisor.hpp"

#include <poll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "agents/replica_spawn.hpp"
#include "agents/run_records.hpp"
#include "protocol/lease_timing.hpp"

namespace gantry::agents {

namespace {

constexpr char kGo = 'g';
constexpr std::size_t kMaxAnswer = 4096;
constexpr std::size_t kMaxEnvironment = 64 << 20;

int pidfd_open(pid_t pid) {
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
}

void write_text(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the agent is gone: the run goes on without its answer
    done += static_cast<std::size_t>(n);
  }
}

std::string read_to_end(int fd) {
  std::string text;
  char buffer[512];
  while (text.size() < kMaxAnswer) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

// The go byte, then the replica's environment: entries ending in NUL, an
// empty one last. nullopt: an end of file first (the agent gave the run up).
std::optional<std::vector<std::string>> wait_for_go(int control_fd) {
  std::string received;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(control_fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || received.size() > kMaxEnvironment) return std::nullopt;
    received.append(buffer, static_cast<std::size_t>(n));
    if (received.front() != kGo) return std::nullopt;
    if (received.size() >= 2 && received.compare(received.size() - 2, 2, std::string(2, '\0')) == 0)
      break;
    if (received.size() == 2 && received[1] == '\0') break;  // go, and no environment
  }
  std::vector<std::string> env;
  std::size_t start = 1;
  for (std::size_t end; (end = received.find('\0', start)) != start; start = end + 1)
    env.push_back(received.substr(start, end - start));
  return env;
}

// The signals that stop the run (the agent's kill(), an operator) arrive on
// a descriptor, in the same poll as the replica's end.
int stop_signals_fd() {
  sigset_t stop;
  sigemptyset(&stop);
  for (int signal : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&stop, signal);
  ::sigprocmask(SIG_BLOCK, &stop, nullptr);  // the replica starts with none blocked
  return ::signalfd(-1, &stop, SFD_CLOEXEC | SFD_NONBLOCK);
}

// The contact file is missing, unreadable or older than the fence timeout.
bool contact_lost(const SupervisorOptions& options) {
  if (options.fence_after_ms <= 0) return false;
  const std::optional<std::int64_t> confirmed = read_contact(options.contact_file);
  return !confirmed || monotonic_ms() - *confirmed > options.fence_after_ms;
}

RunEnd end_of(int status) {
  if (WIFSIGNALED(status)) return RunEnd{128 + WTERMSIG(status), WTERMSIG(status), false};
  return RunEnd{WEXITSTATUS(status), 0, false};
}

class ReplicaWatch {
 public:
  ReplicaWatch(const SupervisorOptions& options, pid_t replica, int stop_fd)
      : options_(options), replica_(replica), stop_fd_(stop_fd), replica_fd_(pidfd_open(replica)) {}
  ~ReplicaWatch() {
    if (replica_fd_ >= 0) ::close(replica_fd_);
  }
  ReplicaWatch(const ReplicaWatch&) = delete;
  ReplicaWatch& operator=(const ReplicaWatch&) = delete;

  RunEnd wait() {
    for (;;) {
      int status = 0;
      if (::waitpid(replica_, &status, WNOHANG) == replica_) return ended(status);
      pollfd items[2] = {{replica_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
      const int polled = ::poll(items, 2, timeout_ms());
      if (polled < 0 && errno != EINTR) ::killpg(replica_, SIGKILL);  // cannot watch: stop it
      if (polled > 0 && (items[1].revents & POLLIN) != 0) on_stop_signal();
      check_fence();
    }
  }

 private:
  int timeout_ms() const {
    constexpr int kWithoutPidfd = 100;  // no pidfd (an old kernel): look now and then
    if (replica_fd_ < 0) return kWithoutPidfd;
    if (options_.fence_after_ms <= 0) return -1;
    return static_cast<int>(
        protocol::fence_check_period(protocol::milliseconds{options_.fence_after_ms}).count());
  }
  void on_stop_signal() {
    signalfd_siginfo info = {};
    while (::read(stop_fd_, &info, sizeof info) == sizeof info) {
    }
    ::killpg(replica_, SIGKILL);  // stopped by the agent: as the replica itself was before
  }
  void check_fence() {
    if (!fenced_) {
      if (!contact_lost(options_)) return;
      fenced_ = true;
      // Into the replica's log: whoever reads it learns why it was stopped.
      write_text(STDERR_FILENO,
                 "gantry-run-supervisor: fenced: the agent's last confirmed contact with the hub "
                 "is older than its fence timeout of " +
                     std::to_string(options_.fence_after_ms) + " ms; stopping the replica\n");
      kill_at_ =
          monotonic_ms() +
          protocol::fence_term_grace(protocol::milliseconds{options_.fence_after_ms}).count();
      ::killpg(replica_, SIGTERM);
      return;
    }
    if (monotonic_ms() >= kill_at_) ::killpg(replica_, SIGKILL);
  }
  // What is left of its process group goes with it, as in a container.
  RunEnd ended(int status) {
    ::killpg(replica_, SIGKILL);
    RunEnd end = end_of(status);
    end.fenced = fenced_;
    return end;
  }

  const SupervisorOptions& options_;
  pid_t replica_;
  int stop_fd_;
  int replica_fd_;
  bool fenced_ = false;
  std::int64_t kill_at_ = 0;
};

}  // namespace

std::vector<std::string> supervisor_argv(const std::filesystem::path& supervisor,
                                         const SupervisorOptions& options) {
  std::vector<std::string> argv = {supervisor.string(),
                                   "--exit-file",
                                   options.exit_file.string(),
                                   "--contact-file",
                                   options.contact_file.string(),
                                   "--fence-after-ms",
                                   std::to_string(options.fence_after_ms)};
  if (options.user) {
    argv.push_back("--run-as");
    argv.push_back(std::to_string(options.user->uid));
  }
  argv.push_back("--");
  argv.insert(argv.end(), options.argv.begin(), options.argv.end());
  return argv;
}

SupervisorOptions parse_supervisor_args(const std::vector<std::string>& args) {
  SupervisorOptions options;
  std::size_t i = 0;
  const auto value = [&](const std::string& flag) -> const std::string& {
    if (i + 1 >= args.size()) throw std::invalid_argument(flag + ": needs a value");
    return args[++i];
  };
  for (; i < args.size() && args[i] != "--"; ++i) {
    const std::string& flag = args[i];
    if (flag == "--exit-file") {
      options.exit_file = value(flag);
    } else if (flag == "--contact-file") {
      options.contact_file = value(flag);
    } else if (flag == "--fence-after-ms") {
      try {
        options.fence_after_ms = std::stoll(value(flag));
      } catch (const std::exception&) {
        throw std::invalid_argument("--fence-after-ms: expected a number of milliseconds");
      }
    } else if (flag == "--run-as") {
      options.user = find_replica_user(value(flag));
    } else {
      throw std::invalid_argument(flag + ": unknown flag");
    }
  }
  if (i < args.size())
    options.argv.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
  if (options.exit_file.empty()) throw std::invalid_argument("--exit-file: is required");
  if (options.argv.empty()) throw std::invalid_argument("no command after --");
  return options;
}

int run_supervisor(const SupervisorOptions& options, int control_fd) {
  const std::optional<std::vector<std::string>> env = wait_for_go(control_fd);
  if (!env) return 0;  // never recorded: nothing to run
  const int stop_fd = stop_signals_fd();
  pid_t replica = -1;
  try {
    replica =
        spawn_replica(options.argv, *env, STDOUT_FILENO, options.user ? &*options.user : nullptr);
  } catch (const std::exception& failure) {
    write_text(control_fd, std::string("error ") + failure.what());
    return 1;  // no exit file: the agent reports the failure and forgets the run
  }
  write_text(control_fd, "ok " + std::to_string(replica) + "\n");
  ::close(control_fd);
  ReplicaWatch watch(options, replica, stop_fd);
  const RunEnd end = watch.wait();
  try {
    write_run_end(options.exit_file, end);
  } catch (const std::exception& failure) {
    // Without it the agent reports the run as lost: still an end, not a rerun.
    const std::string line = std::string("gantry-run-supervisor: ") + failure.what() + "\n";
    write_text(STDERR_FILENO, line);
    return 1;
  }
  return 0;
}

pid_t start_supervised(int control_fd, const std::vector<std::string>& env) {
  std::string go(1, kGo);
  for (const std::string& entry : env) {
    if (entry.empty()) continue;  // would end the list early
    go += entry;
    go += '\0';
  }
  go += '\0';
  write_text(control_fd, go);
  const std::string answer = read_to_end(control_fd);
  if (answer.rfind("ok ", 0) == 0) return static_cast<pid_t>(std::stol(answer.substr(3)));
  if (answer.rfind("error ", 0) == 0) throw std::runtime_error(answer.substr(6));
  throw std::runtime_error("the run supervisor ended before starting the replica");
}

}  // namespace gantry::agents
