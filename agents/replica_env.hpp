// The environment a process replica starts with: the agent's own (a local
// executor runs on the agent's host, like Slurm's default export of the
// submitting environment, so PATH and friends keep working), then the
// container's env, then what tells the replica who it is and, PyTorch-style,
// where its gang meets.
#pragma once

#include <string>
#include <vector>

#include "agents/executor.hpp"
#include "agents/job_plugins.hpp"

namespace gantry::agents {

// "NAME=value" entries. Sets GANTRY_JOB, GANTRY_TASK, GANTRY_REPLICA_INDEX,
// GANTRY_CLUSTER, GANTRY_DISPATCH_ID, GANTRY_EPOCH, MASTER_ADDR (127.0.0.1 when
// the launch names none), MASTER_PORT, RANK and WORLD_SIZE; later sources
// override earlier ones. Index, RANK and WORLD_SIZE count over every part of
// the dispatch, and every part meets at the same MASTER_ADDR / MASTER_PORT, so
// a gang split across clusters forms one PyTorch world. `base` is a
// null-terminated environ-style array. `plugin_env` (the job's plugins,
// agents/job_plugins.hpp) comes last: Volcano appends it to the container's.
std::vector<std::string> replica_environment(const ReplicaLaunch& launch, const char* const* base,
                                             const std::vector<protocol::EnvVar>& plugin_env = {});

// argv for a replica: the first container's command followed by its args;
// the command a plugin gives that container (`changes`) replaces its own, as
// Volcano sets a container's command and leaves its args.
std::vector<std::string> replica_argv(const ReplicaLaunch& launch,
                                      const std::vector<ContainerChange>& changes = {});

}  // namespace gantry::agents
