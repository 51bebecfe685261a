#include "agents/process_executor.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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

// Written with its mode from the start: a private key is never readable by others.
void write_file(const std::filesystem::path& path, const std::string& content, unsigned mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0)
    throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(error));
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

std::filesystem::path plugin_subdir(const std::filesystem::path& dir, PluginDir which) {
  return dir / (which == PluginDir::kSsh ? "ssh" : "volcano");
}

void write_plugin_files(const std::filesystem::path& dir, const std::vector<PluginFile>& files) {
  for (const PluginFile& file : files) {
    const std::filesystem::path subdir = plugin_subdir(dir, file.dir);
    std::error_code error;
    std::filesystem::create_directories(subdir, error);
    if (error)
      throw std::runtime_error("cannot create " + subdir.string() + ": " + error.message());
    std::filesystem::permissions(subdir, std::filesystem::perms::owner_all, error);
    write_file(subdir / file.name, file.content, file.mode);
  }
}

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
  if (std::string why = check_plugins(job); !why.empty()) return why;
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

std::filesystem::path ProcessExecutor::plugin_dir(const ReplicaLaunch& launch) const {
  return work_dir_ / path_segment(launch.job->name) /
         ("plugins-" + std::to_string(launch.key.dispatch));
}

// Host names are this machine's address (the launch's replica_hosts); the
// ports a TF_CONFIG lists follow the gang's rendezvous port, one per
// replica, since every replica listens on this one machine.
std::vector<protocol::EnvVar> ProcessExecutor::plugin_env(const ReplicaLaunch& launch) {
  if (launch.job->plugins.empty()) return {};
  const DispatchId dispatch = launch.key.dispatch;
  const bool fresh = part_plugins_.count(dispatch) == 0;
  PartPlugins part;
  if (fresh) {
    part.dir = plugin_dir(launch);
    if (needs_ssh_keys(*launch.job)) part.keys = ssh_keys_for(*launch.job);
  }
  const PartPlugins& held = fresh ? part : part_plugins_.at(dispatch);
  PluginReplica replica;
  replica.job = launch.job;
  replica.task = launch.task;
  replica.index = launch.index;
  replica.hosts = launch.replica_hosts;
  replica.master_port = launch.master_port;
  replica.distinct_ports_from =
      launch.master_port == 0 ? 0 : static_cast<std::uint16_t>(launch.master_port + 1);
  PluginOutput output = plugin_output(replica, needs_ssh_keys(*launch.job) ? &held.keys : nullptr);
  if (fresh) {
    write_plugin_files(part.dir, output.files);
    part_plugins_.emplace(dispatch, std::move(part));
  }
  const std::filesystem::path& dir = part_plugins_.at(dispatch).dir;
  const auto has = [&](PluginDir which) {
    return std::any_of(output.files.begin(), output.files.end(),
                       [&](const PluginFile& file) { return file.dir == which; });
  };
  if (has(PluginDir::kVolcano))
    output.env.push_back({"GANTRY_VOLCANO_DIR", plugin_subdir(dir, PluginDir::kVolcano).string()});
  if (has(PluginDir::kSsh))
    output.env.push_back({"GANTRY_SSH_DIR", plugin_subdir(dir, PluginDir::kSsh).string()});
  return std::move(output.env);
}

void ProcessExecutor::forget_part_if_gone(DispatchId dispatch) {
  const auto part = part_plugins_.find(dispatch);
  if (part == part_plugins_.end()) return;
  const bool live = std::any_of(children_.begin(), children_.end(),
                                [&](const Child& child) { return child.key.dispatch == dispatch; });
  if (live) return;
  std::error_code ignored;  // a leftover directory only costs disk
  std::filesystem::remove_all(part->second.dir, ignored);
  part_plugins_.erase(part);
}

void ProcessExecutor::start(const ReplicaLaunch& launch, TimeMs) {
  std::vector<std::string> argv = replica_argv(launch);
  if (argv.empty()) throw std::runtime_error("the container has no command");
  std::vector<std::string> env = replica_environment(launch, environ, plugin_env(launch));
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
  if (rc != 0) {
    forget_part_if_gone(launch.key.dispatch);
    throw std::runtime_error(argv[0] + ": " + std::strerror(rc));
  }
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
      const ReplicaKey key = children_[i].key;
      out.push_back(exit_of(key, status));
      children_[i] = children_.back();
      children_.pop_back();
      forget_part_if_gone(key.dispatch);
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
  while (!part_plugins_.empty()) forget_part_if_gone(part_plugins_.begin()->first);
}

pid_t ProcessExecutor::pid_of(const ReplicaKey& key) const {
  for (const Child& child : children_) {
    if (child.key == key) return child.pid;
  }
  return -1;
}

}  // namespace gantry::agents
