// Replicas as real local processes: each runs its first container's command
// and args in a process group of its own (so that killing the replica kills
// whatever it started), with stdout and stderr appended to
// <work-dir>/<job>/<task>-<index>.log. Exits are noticed through SIGCHLD on a
// self-pipe, which the agent's event loop polls. Given a ReplicaUser
// (--run-as), every replica runs as that user, who owns the replica's log and
// its plugin files; the directories above them stay the agent's, so a replica
// cannot plant links where the agent writes next.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <unordered_map>
#include <vector>

#include "agents/executor.hpp"
#include "agents/job_plugins.hpp"
#include "agents/replica_user.hpp"

namespace gantry::agents {

class ProcessExecutor final : public Executor {
 public:
  // `user`: who replicas run as; nullopt runs them as the agent itself.
  explicit ProcessExecutor(std::filesystem::path work_dir,
                           std::optional<ReplicaUser> user = std::nullopt);
  ~ProcessExecutor() override;  // kills and reaps every replica
  ProcessExecutor(const ProcessExecutor&) = delete;
  ProcessExecutor& operator=(const ProcessExecutor&) = delete;

  std::string check(const protocol::JobSpec& job) const override;
  std::uint16_t pick_rendezvous_port() override;
  void start(const ReplicaLaunch& launch, TimeMs now) override;
  void kill(const ReplicaKey& key) override;
  std::optional<TimeMs> next_deadline() const override { return std::nullopt; }
  int wake_fd() const override;
  void collect_exits(TimeMs now, std::vector<ReplicaExit>& out) override;
  void shutdown() override;

  std::filesystem::path log_path(const ReplicaLaunch& launch) const;
  // The process (and process group) id of a running replica, -1 if none.
  pid_t pid_of(const ReplicaKey& key) const;
  // Where the job's plugin files of this part go: what Volcano mounts at
  // /etc/volcano is <dir>/volcano (GANTRY_VOLCANO_DIR), its /root/.ssh is
  // <dir>/ssh (GANTRY_SSH_DIR).
  std::filesystem::path plugin_dir(const ReplicaLaunch& launch) const;

 private:
  struct Child {
    pid_t pid = -1;  // also its process group id
    ReplicaKey key;
  };

  // A part's plugin files (hosts files, its ssh keypair: one per part, so
  // the parts of a split gang hold different keys), written at its first
  // start and removed with its last replica.
  struct PartPlugins {
    std::filesystem::path dir;
    SshKeyPair keys;
  };

  std::vector<protocol::EnvVar> plugin_env(const ReplicaLaunch& launch);
  void forget_part_if_gone(DispatchId dispatch);
  // Opens (appending) the replica's log, owned by the replica's user.
  int open_log(const std::filesystem::path& log) const;

  std::filesystem::path work_dir_;
  std::optional<ReplicaUser> user_;
  std::vector<Child> children_;
  std::unordered_map<DispatchId, PartPlugins> part_plugins_;
};

}  // namespace gantry::agents
