// The hub's audit log: one JSON line per admin action (who, with which
// role, what, on which object, the result, when), appended to its own file.
// The I/O bridge notes each action as it arrives and writes the line when
// the hub's answer to it leaves, so the result is the one the client got.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "actors/access_list.hpp"
#include "actors/admin_roles.hpp"

namespace gantry::actors {

class AuditLog {
 public:
  // Appends to `file` (created 0600). Throws std::runtime_error naming it.
  explicit AuditLog(const std::filesystem::path& file);
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  // An action that the hub will answer: recorded when answered().
  void requested(const std::string& peer, std::uint64_t seq, const Principal& who,
                 AuditedAction action);
  // Any frame sent to an admin peer: completes the action it answers.
  void answered(const std::string& peer, std::string_view frame, std::int64_t now_ms);
  // An action refused before it reached the hub's actors.
  void refused(const Principal& who, const AuditedAction& action, std::string_view why,
               std::int64_t now_ms);
  // An action done outside the admin socket (a web login at /login).
  void record(const Principal& who, const AuditedAction& action, std::string_view result,
              std::string_view message, std::int64_t now_ms);

  const std::filesystem::path& path() const { return path_; }

 private:
  struct Pending {
    std::string key;
    Role role = Role::kNone;
    AuditedAction action;
  };
  void write(const Pending& entry, std::string_view result, std::string_view object_name,
             std::string_view message, std::int64_t now_ms);

  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
  std::mutex mutex_;
  // Answers not yet sent, by (peer, seq); bounded: a peer that never reads
  // its answers cannot grow it without end.
  std::map<std::pair<std::string, std::uint64_t>, Pending> pending_;
};

}  // namespace gantry::actors
