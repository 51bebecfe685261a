#include "agents/replica_user.hpp"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace gantry::agents {

namespace {

std::optional<uid_t> as_uid(const std::string& text) {
  uid_t uid = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, uid);
  if (text.empty() || error != std::errc() || stop != end) return std::nullopt;
  return uid;
}

// getgrouplist's answer for `user`, grown until it fits.
std::vector<gid_t> supplementary_groups(const std::string& name, gid_t primary) {
  int count = 16;
  std::vector<gid_t> groups;
  for (;;) {
    groups.resize(static_cast<std::size_t>(count));
    const int capacity = count;
    if (::getgrouplist(name.c_str(), primary, groups.data(), &count) >= 0) break;
    if (count <= capacity) count = capacity * 2;  // some libcs do not say how many
  }
  groups.resize(static_cast<std::size_t>(count));
  return groups;
}

// The execute (search) bit that applies to `user` on a file of this owner.
bool may_search(const ReplicaUser& user, const struct stat& status) {
  if (user.uid == 0) return true;
  if (status.st_uid == user.uid) return (status.st_mode & S_IXUSR) != 0;
  const bool in_group =
      status.st_gid == user.gid ||
      std::find(user.groups.begin(), user.groups.end(), status.st_gid) != user.groups.end();
  return (status.st_mode & (in_group ? S_IXGRP : S_IXOTH)) != 0;
}

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

}  // namespace

ReplicaUser find_replica_user(const std::string& name_or_uid) {
  passwd entry{};
  passwd* found = nullptr;
  std::vector<char> buffer(16384);
  const std::optional<uid_t> uid = as_uid(name_or_uid);
  int error = 0;
  for (;;) {
    error = uid ? ::getpwuid_r(*uid, &entry, buffer.data(), buffer.size(), &found)
                : ::getpwnam_r(name_or_uid.c_str(), &entry, buffer.data(), buffer.size(), &found);
    if (error != ERANGE) break;
    buffer.resize(buffer.size() * 2);
  }
  if (error != 0)
    throw std::invalid_argument("--run-as " + name_or_uid +
                                ": cannot read the password database: " + std::strerror(error));
  if (found == nullptr) throw std::invalid_argument("--run-as " + name_or_uid + ": no such user");
  ReplicaUser user;
  user.name = entry.pw_name;
  user.uid = entry.pw_uid;
  user.gid = entry.pw_gid;
  user.home = entry.pw_dir;
  user.groups = supplementary_groups(user.name, user.gid);
  return user;
}

std::optional<ReplicaUser> replica_user_for(const std::string& run_as, bool allow_root,
                                            uid_t agent_euid) {
  if (run_as.empty()) {
    if (agent_euid == 0 && !allow_root)
      throw std::invalid_argument(
          "the agent runs as root and the process executor would run every replica as root: "
          "give --run-as USER (an unprivileged user for the replicas), or --allow-root to run "
          "them as root on purpose");
    return std::nullopt;  // as the agent itself: a non-root agent cannot switch anyway
  }
  ReplicaUser user = find_replica_user(run_as);
  if (user.uid == 0 && !allow_root)
    throw std::invalid_argument("--run-as " + run_as +
                                ": replicas would run as root (uid 0); name an unprivileged "
                                "user, or add --allow-root to run them as root on purpose");
  // Already that user: nothing to switch, and a non-root agent could not
  // call setgroups anyway.
  if (user.uid == agent_euid && agent_euid != 0) return std::nullopt;
  return user;
}

std::string why_unreachable(const ReplicaUser& user, const std::filesystem::path& dir) {
  std::filesystem::path on_the_way;
  for (const std::filesystem::path& part : std::filesystem::absolute(dir).lexically_normal()) {
    on_the_way /= part;
    struct stat status = {};
    if (::stat(on_the_way.c_str(), &status) != 0) break;  // the rest is made later, by the agent
    if (S_ISDIR(status.st_mode) && !may_search(user, status)) {
      return user.name + " cannot pass through " + on_the_way.string() + " (mode " +
             octal_mode(status.st_mode) + ", owner uid " + std::to_string(status.st_uid) +
             ", gid " + std::to_string(status.st_gid) + ")";
    }
  }
  return "";
}

std::vector<std::string> environment_for_user(const ReplicaUser& user, const char* const* base) {
  const auto is_identity = [](const std::string& entry) {
    return entry.rfind("HOME=", 0) == 0 || entry.rfind("USER=", 0) == 0 ||
           entry.rfind("LOGNAME=", 0) == 0;
  };
  std::vector<std::string> env;
  for (const char* const* entry = base; entry != nullptr && *entry != nullptr; ++entry) {
    if (!is_identity(*entry)) env.emplace_back(*entry);
  }
  env.push_back("HOME=" + user.home);
  env.push_back("USER=" + user.name);
  env.push_back("LOGNAME=" + user.name);
  return env;
}

}  // namespace gantry::agents
