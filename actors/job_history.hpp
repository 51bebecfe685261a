// Ended jobs as the store keeps them, read on request (gantryctl get jobs,
// describe job) rather than held in the scheduling core: they outlive hub
// restarts until deleted, their ttl or --keep-finished. A connection of its
// own to gantry.db (WAL: reads do not wait on the store's writes).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/messages.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace gantry::actors {

class JobHistory {
 public:
  // Opens the store JobStore made at `state_dir`/gantry.db. Throws
  // std::runtime_error naming the path on failure.
  explicit JobHistory(const std::filesystem::path& state_dir);
  ~JobHistory();
  JobHistory(const JobHistory&) = delete;
  JobHistory& operator=(const JobHistory&) = delete;

  // Ended jobs whose names are not in `listed`, oldest submission first.
  std::vector<protocol::JobInfo> ended(const std::set<std::string>& listed);
  // Of those, the `limit` stored last, oldest submission first (the web view's
  // jobs table: a bounded read however many ended jobs are kept).
  std::vector<protocol::JobInfo> recent_ended(const std::set<std::string>& listed,
                                              std::size_t limit);
  // What describe job shows of the latest ended job named `name`.
  std::optional<protocol::DescribeReply> describe(const std::string& name);
  // Whether an ended job named `name` is kept (one indexed lookup).
  bool holds_ended(std::string_view name);

 private:
  protocol::DescribeReply record_of(sqlite3_stmt* row) const;
  [[noreturn]] void fail(const std::string& what) const;

  std::filesystem::path path_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* ended_name_ = nullptr;  // holds_ended's statement, prepared once
};

}  // namespace gantry::actors
