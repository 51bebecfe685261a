// Replicas as real local processes: each runs its first container's command
// and args in a process group of its own (so that killing the replica kills
// whatever it started), with stdout and stderr appended to
// <work-dir>/<job>/<task>-<index>.log. Exits are noticed through SIGCHLD on a
// self-pipe, which the agent's event loop polls.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <vector>

#include "agents/executor.hpp"

namespace gantry::agents {

class ProcessExecutor final : public Executor {
 public:
  explicit ProcessExecutor(std::filesystem::path work_dir);
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

 private:
  struct Child {
    pid_t pid = -1;  // also its process group id
    ReplicaKey key;
  };

  std::filesystem::path work_dir_;
  std::vector<Child> children_;
};

}  // namespace gantry::agents
