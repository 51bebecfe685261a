// Volcano's job plugins (spec.plugins: env, svc, ssh, pytorch, tensorflow,
// mpi, ray) as a pure function: from the job, one replica and where every
// replica of every task is reached, the environment variables, files and
// container commands Volcano's controller would give that replica's
// containers. The executors decide where the files go and which host names to
// use (docs/plugins.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "agents/dispatch_run.hpp"
#include "protocol/messages.hpp"

namespace gantry::agents {

// Where a plugin file goes: what Volcano mounts at /etc/volcano (svc), or at
// /root/.ssh (ssh, or its --ssh-key-file-path).
enum class PluginDir : std::uint8_t { kVolcano, kSsh };

struct PluginFile {
  PluginDir dir = PluginDir::kVolcano;
  std::string name;  // "worker.host", "id_rsa", ...
  std::string content;
  unsigned mode = 0644;
  bool operator==(const PluginFile&) const = default;
};

struct SshKeyPair {
  std::string private_key;  // PEM, "RSA PRIVATE KEY" (PKCS#1)
  std::string public_key;   // OpenSSH authorized_keys line: "ssh-rsa AAAA...\n"
};

// hosts[task][index]: the address of every replica of every task of the job.
using ReplicaHosts = std::vector<std::vector<std::string>>;

struct PluginReplica {
  const protocol::JobSpec* job = nullptr;
  std::uint32_t task = 0;  // index into job->tasks
  std::int32_t index = 0;  // within its task
  const ReplicaHosts* hosts = nullptr;
  // MASTER_PORT for pytorch; 0: the plugin's --port (23456).
  std::uint16_t master_port = 0;
  // Replicas that share one machine cannot all listen on one port: when not
  // 0, a replica's port in TF_CONFIG is this plus its position over the job
  // (tasks in spec order); 0: the plugin's --port (2222) for every replica.
  std::uint16_t distinct_ports_from = 0;
};

// A container port a plugin opens, as Volcano's ContainerPort (TCP).
struct PluginPort {
  std::string name;  // "gcs", "dashboard", ...
  std::uint16_t number = 0;
  bool operator==(const PluginPort&) const = default;
};

// What a plugin changes in the replica's container of that name (ray: the
// head's and the workers' `ray start`). Volcano replaces the command and
// keeps the container's args; a port is added unless the container already
// has one of that number.
struct ContainerChange {
  std::string container;
  std::vector<std::string> command;
  std::vector<PluginPort> ports;
  bool operator==(const ContainerChange&) const = default;
};

struct PluginOutput {
  std::vector<protocol::EnvVar> env;
  std::vector<PluginFile> files;  // identical for every replica of a job
  std::vector<ContainerChange> containers;  // at most one per container name
};

// Why the job's plugin arguments cannot be honoured ("" when they can): an
// unknown plugin, or an argument its plugin does not take, or a bad value,
// named as "spec.plugins.<plugin>: ...". Arguments are Go flags, as Volcano
// parses them: -name=value, --name=value, --name value, --bool. Also a ray
// job without its head task, which Volcano's controller makes no pod for.
std::string check_plugins(const protocol::JobSpec& job);

// The plugins that run: the job's own, plus svc under pytorch, tensorflow,
// mpi and ray, and ssh under mpi, as Volcano's admission turns them on.
std::vector<std::string> active_plugins(const protocol::JobSpec& job);
bool needs_ssh_keys(const protocol::JobSpec& job);
// Where the ssh plugin's files go in a container: its --ssh-key-file-path
// (default /root/.ssh). The job's plugin arguments must have passed check_plugins().
std::string ssh_key_dir(const protocol::JobSpec& job);

// Env, files and container changes for one replica; without `keys` the ssh
// plugin writes nothing. The job's plugins must have passed check_plugins().
PluginOutput plugin_output(const PluginReplica& replica, const SshKeyPair* keys);

// Whether the job's plugins give the task's container of that name a command
// (ray's head and workers), so that it needs none of its own.
bool plugin_sets_command(const protocol::JobSpec& job, std::uint32_t task,
                         const std::string& container);

// The change for the container of that name in `changes`, or nullptr.
const ContainerChange* change_for(const std::vector<ContainerChange>& changes,
                                  const std::string& container);

// Volcano's names for every replica: "<job>-<task>-<index>.<job>".
ReplicaHosts volcano_hosts(const protocol::JobSpec& job);
// The hosts a part sees: `here` (this agent's address) for its own replicas,
// Volcano's names for the replicas of other parts, whose addresses it is not told.
ReplicaHosts part_hosts(const protocol::JobSpec& job, const std::vector<RunReplica>& replicas,
                        const std::string& here);

// The keypair the job's ssh plugin arguments give, or a new RSA one made with
// OpenSSL. Throws std::runtime_error when OpenSSL fails.
SshKeyPair ssh_keys_for(const protocol::JobSpec& job);

}  // namespace gantry::agents
