#include "agents/process_executor.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>

#include "agents/replica_env.hpp"
#include "agents/replica_spawn.hpp"
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

// lchown: never through a link, though none can be there yet (the agent made
// every path here, in a directory only it can write).
void give_to(const std::filesystem::path& path, const ReplicaUser& user) {
  if (::lchown(path.c_str(), user.uid, user.gid) != 0)
    throw std::runtime_error("cannot give " + path.string() + " to " + user.name + ": " +
                             std::strerror(errno));
}

// Written by the agent, then handed to the replica's user (when it has one):
// files first, their directories last, so that the user never holds a
// directory the agent is still writing in.
void write_plugin_files(const std::filesystem::path& dir, const std::vector<PluginFile>& files,
                        const ReplicaUser* owner) {
  std::vector<std::filesystem::path> subdirs;
  for (const PluginFile& file : files) {
    const std::filesystem::path subdir = plugin_subdir(dir, file.dir);
    std::error_code error;
    std::filesystem::create_directories(subdir, error);
    if (error)
      throw std::runtime_error("cannot create " + subdir.string() + ": " + error.message());
    std::filesystem::permissions(subdir, std::filesystem::perms::owner_all, error);
    write_file(subdir / file.name, file.content, file.mode);
    if (owner != nullptr) give_to(subdir / file.name, *owner);
    if (std::find(subdirs.begin(), subdirs.end(), subdir) == subdirs.end())
      subdirs.push_back(subdir);
  }
  if (owner == nullptr) return;
  for (const std::filesystem::path& subdir : subdirs) give_to(subdir, *owner);
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

ProcessExecutor::ProcessExecutor(std::filesystem::path work_dir, std::optional<ReplicaUser> user)
    : work_dir_(std::move(work_dir)), user_(std::move(user)) {
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
    write_plugin_files(part.dir, output.files, user_ ? &*user_ : nullptr);
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

int ProcessExecutor::open_log(const std::filesystem::path& log) const {
  std::error_code error;
  std::filesystem::create_directories(log.parent_path(), error);
  if (error) {
    throw std::runtime_error("cannot create " + log.parent_path().string() + ": " +
                             error.message());
  }
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) throw std::runtime_error("cannot open " + log.string() + ": " + std::strerror(errno));
  // The replica's own output: its user may read, keep or truncate it.
  if (user_ && ::fchown(fd, user_->uid, user_->gid) != 0) {
    const int reason = errno;
    ::close(fd);
    throw std::runtime_error("cannot give " + log.string() + " to " + user_->name + ": " +
                             std::strerror(reason));
  }
  return fd;
}

void ProcessExecutor::start(const ReplicaLaunch& launch, TimeMs) {
  const std::vector<std::string> argv = replica_argv(launch);
  if (argv.empty()) throw std::runtime_error("the container has no command");
  std::vector<std::string> base;  // the agent's environment, as the replica's user
  if (user_) base = environment_for_user(*user_, environ);
  std::vector<const char*> base_c;
  for (const std::string& entry : base) base_c.push_back(entry.c_str());
  base_c.push_back(nullptr);
  const std::vector<std::string> env =
      replica_environment(launch, user_ ? base_c.data() : environ, plugin_env(launch));
  int log = -1;
  pid_t pid = -1;
  try {
    log = open_log(log_path(launch));
    pid = spawn_replica(argv, env, log, user_ ? &*user_ : nullptr);
  } catch (...) {
    if (log >= 0) ::close(log);
    forget_part_if_gone(launch.key.dispatch);
    throw;
  }
  ::close(log);  // the replica holds its own copy
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
