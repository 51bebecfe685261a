#include "agents/process_executor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>

#include "agents/log_file_source.hpp"
#include "agents/replica_env.hpp"
#include "agents/replica_spawn.hpp"
#include "agents/run_supervisor.hpp"
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

constexpr const char* kSupervisorName = "gantry-run-supervisor";

int pidfd_open(pid_t pid) {
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
}

// A signal through the pidfd reaches the supervisor itself, never a process
// that took its pid after it ended.
void signal_through(int pidfd, int signal) {
  ::syscall(SYS_pidfd_send_signal, pidfd, signal, nullptr, 0);
}

bool has_ended(int pidfd) {
  pollfd item{pidfd, POLLIN, 0};
  return ::poll(&item, 1, 0) > 0;
}

void wait_until_ended(int pidfd) {
  pollfd item{pidfd, POLLIN, 0};
  while (::poll(&item, 1, -1) < 0 && errno == EINTR) {
  }
}

void reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

std::filesystem::path default_supervisor() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::filesystem::path(kSupervisorName) : self.parent_path() / kSupervisorName;
}

}  // namespace

ProcessExecutor::ProcessExecutor(std::filesystem::path work_dir, std::optional<ReplicaUser> user,
                                 std::filesystem::path state_dir, std::filesystem::path supervisor)
    : work_dir_(std::move(work_dir)),
      user_(std::move(user)),
      state_(state_dir.empty() ? work_dir_ / ".agent-state" : std::move(state_dir)),
      supervisor_(supervisor.empty() ? default_supervisor() : std::move(supervisor)),
      epoll_fd_(::epoll_create1(EPOLL_CLOEXEC)) {
  if (epoll_fd_ < 0)
    throw std::runtime_error(std::string("process executor: epoll_create1: ") +
                             std::strerror(errno));
}

ProcessExecutor::~ProcessExecutor() {
  shutdown();
  ::close(epoll_fd_);
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
    if (container.command.empty() && container.args.empty() &&
        !plugin_sets_command(job, static_cast<std::uint32_t>(t), container.name)) {
      return field + ".template.spec.containers[0].command: the process executor needs a command";
    }
  }
  return "";
}

std::uint16_t ProcessExecutor::pick_rendezvous_port() {
  return support::free_loopback_port();
}

std::filesystem::path ProcessExecutor::log_path(const ReplicaLaunch& launch) const {
  return log_path(launch.job->name, launch.job->tasks.at(launch.task).name, launch.index);
}

std::filesystem::path ProcessExecutor::log_path(const std::string& job, const std::string& task,
                                                std::int32_t index) const {
  return work_dir_ / path_segment(job) /
         (path_segment(task) + "-" + std::to_string(index) + ".log");
}

std::unique_ptr<LogSource> ProcessExecutor::open_log(const protocol::LogsRequest& request,
                                                     std::string& why) {
  return open_log_file(request, log_path(request.job, request.task, request.replica), why);
}

std::filesystem::path ProcessExecutor::plugin_dir(const ReplicaLaunch& launch) const {
  return work_dir_ / path_segment(launch.job->name) /
         ("plugins-" + std::to_string(launch.key.dispatch));
}

// Host names are this machine's address (the launch's replica_hosts); the
// ports a TF_CONFIG lists follow the gang's rendezvous port, one per
// replica, since every replica listens on this one machine.
PluginOutput ProcessExecutor::replica_plugins(const ReplicaLaunch& launch) {
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
  return output;
}

void ProcessExecutor::forget_part_if_gone(DispatchId dispatch) {
  const auto part = part_plugins_.find(dispatch);
  if (part == part_plugins_.end()) return;
  if (has_live_replica(dispatch)) return;
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
  const PluginOutput plugins = replica_plugins(launch);
  std::vector<std::string> argv = replica_argv(launch, plugins.containers);
  if (argv.empty()) throw std::runtime_error("the container has no command");
  std::vector<std::string> base;  // the agent's environment, as the replica's user
  if (user_) base = environment_for_user(*user_, environ);
  std::vector<const char*> base_c;
  for (const std::string& entry : base) base_c.push_back(entry.c_str());
  base_c.push_back(nullptr);
  std::vector<std::string> env =
      replica_environment(launch, user_ ? base_c.data() : environ, plugins.env);
  const protocol::TaskSpec& task = launch.job->tasks.at(launch.task);
  queued_.push_back(
      QueuedStart{RunRecord{launch.key, launch.job->name, task.name, launch.node, launch.part,
                            launch.parts, launch.index, -1, 0, launch.part_replicas},
                  std::move(argv), std::move(env), log_path(launch)});
}

// One start per call: the agent's loop serves its socket and timers between
// two (agents/agent_loop.cpp), whatever the queue's length.
void ProcessExecutor::collect_progress(std::vector<ReplicaProgress>& out) {
  if (queued_.empty()) return;
  QueuedStart queued = std::move(queued_.front());
  queued_.pop_front();
  try {
    start_queued(queued);
  } catch (const std::exception& failure) {
    const std::string why = *failure.what() != '\0' ? failure.what() : "unknown error";
    unstarted_ends_.push_back(ReplicaExit{queued.record.key, 127, 0, false, why});
    forget_part_if_gone(queued.record.key.dispatch);
    return;
  }
  out.push_back(ReplicaProgress{queued.record.key, true});
}

std::optional<TimeMs> ProcessExecutor::next_deadline() const {
  if (queued_.empty() && unstarted_ends_.empty()) return std::nullopt;
  return TimeMs{0};  // long due
}

void ProcessExecutor::start_queued(QueuedStart& queued) {
  const int log = open_log(queued.log);
  try {
    watch(supervise(queued, log));
  } catch (...) {
    ::close(log);
    throw;
  }
  ::close(log);  // the supervisor and the replica hold their own copies
}

// The run is recorded (fsynced) before the supervisor is told to start the
// replica: a crash at any point leaves no replica the next agent cannot find.
// Until its go, a supervisor whose agent goes away starts nothing.
ProcessExecutor::Child ProcessExecutor::supervise(QueuedStart& queued, int log) {
  RunRecord& record = queued.record;
  state_.remove(record.key);  // an end left by an earlier run of the same key
  int control[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, control) != 0)
    throw std::runtime_error(std::string("cannot start the replica: socketpair: ") +
                             std::strerror(errno));
  SupervisorOptions supervised{state_.exit_path(record.key), state_.contact_path(), fence_after_ms_,
                               user_, queued.argv};
  pid_t supervisor = -1;
  try {
    // An empty environment: the job's reaches only the replica (start_supervised).
    supervisor = spawn_process(supervisor_argv(supervisor_, supervised), {},
                               ProcessIo{log, control[1], true}, nullptr);
  } catch (...) {
    ::close(control[0]);
    ::close(control[1]);
    throw;
  }
  ::close(control[1]);
  Child child{record.key, supervisor, pidfd_open(supervisor), -1, true};
  if (child.supervisor_fd < 0) {  // unwatchable (a kernel before 5.3): never started
    const int error = errno;
    ::close(control[0]);  // the supervisor starts nothing and exits
    reap(supervisor);
    throw std::runtime_error(std::string("cannot watch the run supervisor: pidfd_open: ") +
                             std::strerror(error));
  }
  try {
    record.supervisor = supervisor;
    record.supervisor_start = process_start_time(supervisor);
    state_.write_record(record);
    child.replica = start_supervised(control[0], queued.env);
  } catch (...) {
    ::close(control[0]);  // an end of file: a supervisor still waiting starts nothing
    ::close(child.supervisor_fd);
    reap(supervisor);
    state_.remove(record.key);
    throw;
  }
  ::close(control[0]);
  return child;
}

void ProcessExecutor::watch(Child child) {
  if (child.supervisor_fd >= 0) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = child.supervisor_fd;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, child.supervisor_fd, &event);
  }
  children_.push_back(child);
}

void ProcessExecutor::kill(const ReplicaKey& key) {
  const auto queued = std::find_if(queued_.begin(), queued_.end(),
                                   [&](const QueuedStart& each) { return each.record.key == key; });
  if (queued != queued_.end()) {
    end_unstarted(queued, ReplicaExit{key, 128 + SIGTERM, SIGTERM});
    return;
  }
  for (const Child& child : children_) {
    if (child.key == key) signal_through(child.supervisor_fd, SIGTERM);  // it kills the replica
  }
}

void ProcessExecutor::end_unstarted(std::deque<QueuedStart>::iterator queued, ReplicaExit exit) {
  const DispatchId dispatch = queued->record.key.dispatch;
  queued_.erase(queued);
  unstarted_ends_.push_back(std::move(exit));
  forget_part_if_gone(dispatch);
}

int ProcessExecutor::wake_fd() const {
  return epoll_fd_;
}

// A supervisor that ended without writing the end (killed itself) leaves a
// run that is over, but how is not known: it counts as killed.
ReplicaExit ProcessExecutor::end_of(const Child& child) const {
  const std::optional<RunEnd> end = read_run_end(state_.exit_path(child.key));
  if (!end) return ReplicaExit{child.key, 128 + SIGKILL, SIGKILL};
  return ReplicaExit{child.key, end->exit_code, end->signal, end->fenced};
}

void ProcessExecutor::collect_exits(TimeMs now, std::vector<ReplicaExit>& out) {
  for (ReplicaExit& exit : unstarted_ends_) out.push_back(std::move(exit));
  unstarted_ends_.clear();
  for (std::size_t i = 0; i < children_.size();) {
    const Child child = children_[i];
    if (child.supervisor_fd >= 0 && !has_ended(child.supervisor_fd)) {
      ++i;
      continue;
    }
    if (child.own_child) reap(child.supervisor);
    out.push_back(end_of(child));
    if (child.supervisor_fd >= 0) {
      ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, child.supervisor_fd, nullptr);
      ::close(child.supervisor_fd);
    }
    children_[i] = children_.back();
    children_.pop_back();
    ended_.push_back(Ended{child.key, now});
    bound_recorded_ends();
    forget_part_if_gone(child.key.dispatch);
  }
}

bool ProcessExecutor::has_live_replica(DispatchId dispatch) const {
  return std::any_of(children_.begin(), children_.end(),
                     [&](const Child& child) { return child.key.dispatch == dispatch; }) ||
         std::any_of(queued_.begin(), queued_.end(), [&](const QueuedStart& queued) {
           return queued.record.key.dispatch == dispatch;
         });
}

// The hub stored every end collected before `heard_before` (a Hello repeated
// them and was welcomed); a part still running keeps all its records, so
// that a restarted agent sees it whole.
void ProcessExecutor::forget_recorded_ends(TimeMs heard_before) {
  for (std::size_t i = 0; i < ended_.size();) {
    const Ended& ended = ended_[i];
    if (ended.collected >= heard_before || has_live_replica(ended.key.dispatch)) {
      ++i;
      continue;
    }
    state_.remove(ended.key);
    ended_[i] = ended_.back();
    ended_.pop_back();
  }
}

// A heartbeat the hub echoed says it heard, not that it stored: the ends
// stay recorded until a Welcome says so (ends_stored).
void ProcessExecutor::hub_contact(TimeMs confirmed, TimeMs fence_after_ms) {
  fence_after_ms_ = fence_after_ms;
  state_.write_contact(confirmed);
}

void ProcessExecutor::ends_stored(TimeMs reported_before) {
  forget_recorded_ends(reported_before);
}

// Within a long session no Welcome comes: the oldest ended records go once
// there are more than a Hello repeats (the agent core keeps as many).
void ProcessExecutor::bound_recorded_ends() {
  constexpr std::size_t kMaxRecordedEnds = 4096;
  while (ended_.size() > kMaxRecordedEnds) {
    auto oldest = ended_.end();
    for (auto ended = ended_.begin(); ended != ended_.end(); ++ended) {
      if (has_live_replica(ended->key.dispatch)) continue;  // its part stays whole
      if (oldest == ended_.end() || ended->collected < oldest->collected) oldest = ended;
    }
    if (oldest == ended_.end()) return;
    state_.remove(oldest->key);
    *oldest = ended_.back();
    ended_.pop_back();
  }
}

std::vector<AdoptedReplica> ProcessExecutor::adopt() {
  std::vector<AdoptedReplica> adopted;
  const TimeMs now = monotonic_ms();
  for (const RunRecord& record : state_.records()) {
    AdoptedReplica replica{record.key,  record.job,   record.task,      record.node,
                           record.part, record.parts, record.task_index};
    replica.part_replicas = record.part_replicas;
    // Alive first, then its end: a supervisor writes the end just before it exits.
    int pidfd = pidfd_open(record.supervisor);
    if (pidfd >= 0 && process_start_time(record.supervisor) != record.supervisor_start) {
      ::close(pidfd);  // another process took the pid
      pidfd = -1;
    }
    const bool alive = pidfd >= 0 && !has_ended(pidfd);
    const std::optional<RunEnd> end = read_run_end(state_.exit_path(record.key));
    if (alive && !end) {
      watch(Child{record.key, record.supervisor, pidfd, -1, false});
    } else {
      if (pidfd >= 0) ::close(pidfd);
      replica.ended = true;
      replica.exit_code = end ? end->exit_code : 128 + SIGKILL;  // lost with its supervisor
      replica.fenced = end && end->fenced;
      ended_.push_back(Ended{record.key, now});
    }
    adopted.push_back(std::move(replica));
  }
  return adopted;
}

void ProcessExecutor::shutdown() {
  queued_.clear();  // never recorded, never started
  unstarted_ends_.clear();
  for (const Child& child : children_) signal_through(child.supervisor_fd, SIGTERM);
  for (const Child& child : children_) {
    if (child.supervisor_fd >= 0) wait_until_ended(child.supervisor_fd);
    if (child.own_child) reap(child.supervisor);
    if (child.supervisor_fd >= 0) {
      ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, child.supervisor_fd, nullptr);
      ::close(child.supervisor_fd);
    }
    state_.remove(child.key);
  }
  children_.clear();
  for (const Ended& ended : ended_) state_.remove(ended.key);
  ended_.clear();
  while (!part_plugins_.empty()) forget_part_if_gone(part_plugins_.begin()->first);
}

pid_t ProcessExecutor::pid_of(const ReplicaKey& key) const {
  for (const Child& child : children_) {
    if (child.key == key) return child.replica;
  }
  return -1;
}

}  // namespace gantry::agents
