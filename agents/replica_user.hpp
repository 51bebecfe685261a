// Who the process executor's replicas run as (--run-as USER, --allow-root).
// An agent started as root must not hand root to every job it is sent: it
// either switches each replica to an unprivileged user or is told, with
// --allow-root, that running them as root is intended.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gantry::agents {

// A user from the password database, with everything the replica's child
// process needs to become it: resolved before fork, because a child of a
// multi-threaded agent may only make async-signal-safe calls (initgroups,
// which reads /etc/group, is not one).
struct ReplicaUser {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // supplementary groups, as initgroups would set them
  std::string home;
};

// NAME or a numeric uid, looked up in the password database. Throws
// std::invalid_argument naming the user when there is no such user.
ReplicaUser find_replica_user(const std::string& name_or_uid);

// What replicas run as, for an agent whose effective uid is `agent_euid`:
// nullopt runs them as the agent itself. Throws std::invalid_argument naming
// --run-as / --allow-root when the combination would run replicas as root
// without --allow-root, or when --run-as names no user.
std::optional<ReplicaUser> replica_user_for(const std::string& run_as, bool allow_root,
                                            uid_t agent_euid);

// Why `user` cannot pass through to `dir` (the first existing directory on
// the way it may not search, its mode and owner), "" when it can. Mode bits
// only: ACLs are not read. A replica reads its plugin files and elastic
// state under the work directory, so an agent warns at start.
std::string why_unreachable(const ReplicaUser& user, const std::filesystem::path& dir);

// "HOME=..", "USER=..", "LOGNAME=.." of `user` in place of the agent's own in
// the environ-style `base`: programs that look for their configuration or a
// cache directory find the replica user's, not root's.
std::vector<std::string> environment_for_user(const ReplicaUser& user, const char* const* base);

}  // namespace gantry::agents
