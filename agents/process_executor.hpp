// Replicas as real local processes: each runs its first container's command
// and args in a process group of its own (so that killing the replica kills
// whatever it started), with stdout and stderr appended to
// <work-dir>/<job>/<task>-<index>.log. Each replica has a run supervisor
// (agents/run_supervisor.hpp) that outlives a crash of the agent and writes
// the replica's real end into the state directory, where every run is
// recorded before it starts (agents/run_records.hpp): a restarted agent
// re-attaches to what still runs and reports what ended (adopt()). Ends are
// noticed through each supervisor's pidfd, in one epoll set the agent's event
// loop polls. start() only queues a replica: collect_progress() spawns one
// queued supervisor per call and reports that replica running, so that a
// burst of Commits (hundreds after a hub restart) never holds the agent's
// one thread for the seconds their spawns take, while heartbeats and the
// hub's answers wait behind them. Given a ReplicaUser
// (--run-as), every replica runs as that user, who owns the replica's log and
// its plugin files; the directories above them stay the agent's, so a replica
// cannot plant links where the agent writes next.
#pragma once

#include <sys/types.h>

#include <deque>
#include <filesystem>
#include <optional>
#include <unordered_map>
#include <vector>

#include "agents/executor.hpp"
#include "agents/job_plugins.hpp"
#include "agents/replica_user.hpp"
#include "agents/run_records.hpp"

namespace gantry::agents {

class ProcessExecutor final : public Executor {
 public:
  // `user`: who replicas run as; nullopt runs them as the agent itself.
  // `state_dir`: "" is <work_dir>/.agent-state; `supervisor`: "" is
  // gantry-run-supervisor next to this program.
  explicit ProcessExecutor(std::filesystem::path work_dir,
                           std::optional<ReplicaUser> user = std::nullopt,
                           std::filesystem::path state_dir = {},
                           std::filesystem::path supervisor = {});
  ~ProcessExecutor() override;  // kills and reaps every replica
  ProcessExecutor(const ProcessExecutor&) = delete;
  ProcessExecutor& operator=(const ProcessExecutor&) = delete;

  std::string check(const protocol::JobSpec& job) const override;
  std::uint16_t pick_rendezvous_port() override;
  bool reports_running() const override { return true; }
  // <work-dir>/<job>/<task>-<index>.log
  std::unique_ptr<LogSource> open_log(const protocol::LogsRequest& request,
                                      std::string& why) override;
  void collect_progress(std::vector<ReplicaProgress>& out) override;
  void start(const ReplicaLaunch& launch, TimeMs now) override;
  void kill(const ReplicaKey& key) override;
  // Due at once while a start is queued or an unstarted replica's end is
  // unreported; the ends of running replicas come through wake_fd().
  std::optional<TimeMs> next_deadline() const override;
  int wake_fd() const override;
  void collect_exits(TimeMs now, std::vector<ReplicaExit>& out) override;
  void shutdown() override;
  void hub_contact(TimeMs confirmed, TimeMs fence_after_ms) override;
  void ends_stored(TimeMs reported_before) override;

  // The runs a previous agent with this state directory started: those still
  // running are watched again (their ends come through collect_exits()),
  // those that ended say how. For AgentCore::adopt(), before the first Hello.
  std::vector<AdoptedReplica> adopt();

  std::filesystem::path log_path(const ReplicaLaunch& launch) const;
  std::filesystem::path log_path(const std::string& job, const std::string& task,
                                 std::int32_t index) const;
  // The process (and process group) id of a running replica, -1 if none.
  pid_t pid_of(const ReplicaKey& key) const;
  // Where the job's plugin files of this part go: what Volcano mounts at
  // /etc/volcano is <dir>/volcano (GANTRY_VOLCANO_DIR), its /root/.ssh is
  // <dir>/ssh (GANTRY_SSH_DIR).
  std::filesystem::path plugin_dir(const ReplicaLaunch& launch) const;

 private:
  struct Child {
    ReplicaKey key;
    pid_t supervisor = -1;
    int supervisor_fd = -1;  // its pidfd, in epoll_fd_
    pid_t replica = -1;      // also its process group id; -1 when adopted
    bool own_child = true;   // false: adopted, reaped by someone else
  };
  // A replica whose end was collected: its record stays until the hub has
  // heard that end (a contact confirmed after it) and its part is over.
  struct Ended {
    ReplicaKey key;
    TimeMs collected = 0;
  };

  // A replica start() accepted, to be spawned by collect_progress().
  struct QueuedStart {
    RunRecord record;  // its supervisor's pid and start time still unknown
    std::vector<std::string> argv;
    std::vector<std::string> env;
    std::filesystem::path log;
  };

  // A part's plugin files (hosts files, its ssh keypair: one per part, so
  // the parts of a split gang hold different keys), written at its first
  // start and removed with its last replica.
  struct PartPlugins {
    std::filesystem::path dir;
    SshKeyPair keys;
  };

  // The replica's plugin env (with where its part's files are) and the
  // commands its plugins give its containers.
  PluginOutput replica_plugins(const ReplicaLaunch& launch);
  void forget_part_if_gone(DispatchId dispatch);
  // Opens (appending) the replica's log, owned by the replica's user.
  int open_log(const std::filesystem::path& log) const;
  void start_queued(QueuedStart& queued);
  // Starts the replica's supervisor and records the run; returns the child.
  Child supervise(QueuedStart& queued, int log);
  // Reports a queued replica that will never start as ended, and drops it.
  void end_unstarted(std::deque<QueuedStart>::iterator queued, ReplicaExit exit);
  void watch(Child child);
  ReplicaExit end_of(const Child& child) const;
  void forget_recorded_ends(TimeMs heard_before);
  void bound_recorded_ends();
  bool has_live_replica(DispatchId dispatch) const;

  std::filesystem::path work_dir_;
  std::optional<ReplicaUser> user_;
  RunStateDir state_;
  std::filesystem::path supervisor_;
  int epoll_fd_ = -1;
  TimeMs fence_after_ms_ = 0;  // 0 until the hub gives the fence timeout: never fenced
  std::deque<QueuedStart> queued_;
  std::vector<ReplicaExit> unstarted_ends_;  // for the next collect_exits()
  std::vector<Child> children_;
  std::vector<Ended> ended_;
  std::unordered_map<DispatchId, PartPlugins> part_plugins_;
};

}  // namespace gantry::agents
