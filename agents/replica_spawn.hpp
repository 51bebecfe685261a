// Starts one process replica: fork, then in the child a process group of its
// own, default signal handling, stdin from /dev/null, stdout and stderr to
// its log, the replica user's groups, gid and uid (in that order: dropping
// the uid first would leave no right to change the others), and exec.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "agents/replica_user.hpp"

namespace gantry::agents {

// `output_fd` becomes the replica's stdout and stderr; `user` null keeps the
// agent's own identity. Returns the pid (also the process group id) once the
// replica's program runs. Throws std::runtime_error saying what failed: "ARGV0:
// <reason>" when the program cannot be executed, "cannot run as USER (uid N,
// gid G): setuid: <reason>" when the identity cannot be taken, and so on; no
// child is left behind then.
pid_t spawn_replica(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                    int output_fd, const ReplicaUser* user);

struct ProcessIo {
  int output_fd = -1;        // stdout and stderr
  int input_fd = -1;         // stdin; -1: /dev/null
  bool own_session = false;  // setsid() instead of a process group in the agent's session
};
// spawn_replica() with more say over the child's descriptors and session:
// how the agent starts a run supervisor (agents/run_supervisor.hpp).
pid_t spawn_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                    const ProcessIo& io, const ReplicaUser* user);

}  // namespace gantry::agents
