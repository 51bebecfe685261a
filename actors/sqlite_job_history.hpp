// The SQLite store's ended jobs, through a read connection of its own to
// gantry.db (WAL: reads do not wait on the store's writes).
#pragma once

#include <filesystem>

#include "actors/job_history.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace gantry::actors {

class SqliteJobHistory final : public JobHistory {
 public:
  // Opens the database SqliteJobStore made at `db`. Throws
  // std::runtime_error naming the path on failure.
  explicit SqliteJobHistory(std::filesystem::path db);
  ~SqliteJobHistory() override;
  SqliteJobHistory(const SqliteJobHistory&) = delete;
  SqliteJobHistory& operator=(const SqliteJobHistory&) = delete;

  std::vector<protocol::JobInfo> ended(const std::set<std::string>& listed) override;
  std::vector<protocol::JobInfo> recent_ended(const std::set<std::string>& listed,
                                              std::size_t limit) override;
  std::optional<protocol::DescribeReply> describe(const std::string& name) override;
  // One indexed lookup.
  bool holds_ended(std::string_view name) override;

 private:
  protocol::DescribeReply record_of(sqlite3_stmt* row) const;
  [[noreturn]] void fail(const std::string& what) const;

  std::filesystem::path path_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* ended_name_ = nullptr;  // holds_ended's statement, prepared once
};

}  // namespace gantry::actors
