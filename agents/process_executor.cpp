#include "agents/process_executor.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>

#include "agents/replica_env.hpp"
#include "agents/signal_pipe.hpp"
#include "support/free_port.hpp"

extern char** environ;

namespace gantry::agents {

namespace {

// Job and task names come from users: keep them to one harmless path segment.
std::string path_segment(const std::string& name) {
  std::string out = name;
  for (char& c : out) {
    const bool safe =
        std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    if (!safe) c = '_';
  }
  if (out.empty() || out == "." || out == "..") out = "_";
  return out;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// posix_spawn attributes: a new process group, an empty signal mask and
// default handlers, so the replica does not inherit the agent's SIGCHLD pipe
// or ignored signals.
class SpawnAttributes {
 public:
  SpawnAttributes() {
    posix_spawnattr_init(&attr_);
    sigset_t none;
    sigemptyset(&none);
    sigset_t defaults;
    sigfillset(&defaults);
    sigdelset(&defaults, SIGKILL);
    sigdelset(&defaults, SIGSTOP);
    posix_spawnattr_setpgroup(&attr_, 0);
    posix_spawnattr_setsigmask(&attr_, &none);
    posix_spawnattr_setsigdefault(&attr_, &defaults);
    posix_spawnattr_setflags(
        &attr_, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  }
  ~SpawnAttributes() { posix_spawnattr_destroy(&attr_); }
  const posix_spawnattr_t* get() const { return &attr_; }

 private:
  posix_spawnattr_t attr_;
};

class SpawnFiles {
 public:
  explicit SpawnFiles(const std::string& log) {
    posix_spawn_file_actions_init(&actions_);
    posix_spawn_file_actions_addopen(&actions_, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions_, STDOUT_FILENO, log.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions_, STDOUT_FILENO, STDERR_FILENO);
  }
  ~SpawnFiles() { posix_spawn_file_actions_destroy(&actions_); }
  const posix_spawn_file_actions_t* get() const { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

ReplicaExit exit_of(const ReplicaKey& key, int status) {
  if (WIFSIGNALED(status)) return ReplicaExit{key, 128 + WTERMSIG(status), WTERMSIG(status)};
  return ReplicaExit{key, WEXITSTATUS(status), 0};
}

// Reaps `pid` if it has exited. Before reaping, kills what is left of its
// process group: a replica's helpers do not outlive it (as in a container),
// and while the leader is an unreaped zombie its group id cannot be reused.
bool reap_if_exited(pid_t pid, int& status) {
  siginfo_t info = {};
  if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    return false;
  }
  if (info.si_pid != pid) return false;
  ::killpg(pid, SIGKILL);
  return ::waitpid(pid, &status, 0) == pid;
}

}  // namespace

ProcessExecutor::ProcessExecutor(std::filesystem::path work_dir) : work_dir_(std::move(work_dir)) {
  child_exit_pipe();  // install the SIGCHLD handler before the first child exists
}

ProcessExecutor::~ProcessExecutor() {
  shutdown();
}

std::string ProcessExecutor::check(const protocol::JobSpec& job) const {
  for (std::size_t t = 0; t < job.tasks.size(); ++t) {
    const protocol::TaskSpec& task = job.tasks[t];
    const std::string field = "spec.tasks[" + std::to_string(t) + "]";
    if (task.containers.empty()) {
      return field + ".template.spec.containers: the process executor needs a container to run";
    }
    const protocol::ContainerSpec& container = task.containers.front();
    if (container.command.empty() && container.args.empty()) {
      return field + ".template.spec.containers[0].command: the process executor needs a command";
    }
  }
  return "";
}

std::uint16_t ProcessExecutor::pick_rendezvous_port() {
  return support::free_loopback_port();
}

std::filesystem::path ProcessExecutor::log_path(const ReplicaLaunch& launch) const {
  const protocol::TaskSpec& task = launch.job->tasks.at(launch.task);
  return work_dir_ / path_segment(launch.job->name) /
         (path_segment(task.name) + "-" + std::to_string(launch.index) + ".log");
}

void ProcessExecutor::start(const ReplicaLaunch& launch, TimeMs) {
  std::vector<std::string> argv = replica_argv(launch);
  if (argv.empty()) throw std::runtime_error("the container has no command");
  std::vector<std::string> env = replica_environment(launch, environ);
  const std::filesystem::path log = log_path(launch);
  std::error_code error;
  std::filesystem::create_directories(log.parent_path(), error);
  if (error) {
    throw std::runtime_error("cannot create " + log.parent_path().string() + ": " +
                             error.message());
  }
  std::vector<char*> argv_c = c_strings(argv);
  std::vector<char*> env_c = c_strings(env);
  const SpawnAttributes attributes;
  const SpawnFiles files(log.string());
  pid_t pid = -1;
  const int rc =
      ::posix_spawnp(&pid, argv_c[0], files.get(), attributes.get(), argv_c.data(), env_c.data());
  if (rc != 0) throw std::runtime_error(argv[0] + ": " + std::strerror(rc));
  children_.push_back(Child{pid, launch.key});
}

void ProcessExecutor::kill(const ReplicaKey& key) {
  const pid_t pid = pid_of(key);
  if (pid > 0) ::killpg(pid, SIGKILL);
}

int ProcessExecutor::wake_fd() const {
  return child_exit_pipe().fd();
}

void ProcessExecutor::collect_exits(TimeMs, std::vector<ReplicaExit>& out) {
  // Drain first: a child that exits after this still writes a new byte.
  child_exit_pipe().drain();
  for (std::size_t i = 0; i < children_.size();) {
    int status = 0;
    if (reap_if_exited(children_[i].pid, status)) {
      out.push_back(exit_of(children_[i].key, status));
      children_[i] = children_.back();
      children_.pop_back();
    } else {
      ++i;
    }
  }
}

void ProcessExecutor::shutdown() {
  for (const Child& child : children_) ::killpg(child.pid, SIGKILL);
  for (const Child& child : children_) {
    int status = 0;
    while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  children_.clear();
}

pid_t ProcessExecutor::pid_of(const ReplicaKey& key) const {
  for (const Child& child : children_) {
    if (child.key == key) return child.pid;
  }
  return -1;
}

}  // namespace gantry::agents
