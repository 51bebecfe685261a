// gantry-run-supervisor: the small process between a process-executor agent
// and one replica, as slurmstepd is between slurmd and a step. The agent
// starts it in a session of its own, records the run, then tells it to go;
// it starts the replica in a process group of its own (the replica's user,
// environment and log: agents/replica_spawn.hpp), waits for it, and writes the
// replica's real end into the agent's state directory
// (agents/run_records.hpp) before it exits. It outlives the agent's crash,
// so a restarted agent re-attaches to it or finds the run's end.
//
// It also fences: while the agent's last confirmed contact with the hub (the
// contact file) is older than the fence timeout, the run is stopped (SIGTERM, then
// SIGKILL after protocol::fence_term_grace), so that the hub's requeue after
// its lost grace never meets a live copy (protocol/lease_timing.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "agents/replica_user.hpp"

namespace gantry::agents {

struct SupervisorOptions {
  std::filesystem::path exit_file;
  std::filesystem::path contact_file;
  std::int64_t fence_after_ms = 0;  // 0: the run is never fenced
  std::optional<ReplicaUser> user;  // nullopt: the supervisor's own identity
  std::vector<std::string> argv;    // the replica's command
};

// The agent's side: the supervisor's command line for `options`.
std::vector<std::string> supervisor_argv(const std::filesystem::path& supervisor,
                                         const SupervisorOptions& options);
// Throws std::invalid_argument naming what is wrong.
SupervisorOptions parse_supervisor_args(const std::vector<std::string>& args);

// The supervisor: waits for the agent's go on `control_fd` (a socket: an end
// of file instead means the agent gave the run up before recording it) with
// the replica's environment, starts the replica, answers "ok PID\n" or
// "error REASON" and closes `control_fd`, then watches the replica until it
// ends. Returns the supervisor's exit status. The environment comes this way,
// not as the supervisor's own: the supervisor may run as root, and a job's
// LD_PRELOAD must never reach it.
int run_supervisor(const SupervisorOptions& options, int control_fd);

// The agent's side of the control socket: go with the replica's environment,
// then the answer. Returns the replica's pid; throws std::runtime_error with
// the supervisor's reason.
pid_t start_supervised(int control_fd, const std::vector<std::string>& env);

}  // namespace gantry::agents
