#include "actors/sqlite_job_history.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <stdexcept>

#include "actors/sqlite_job_store.hpp"
#include "actors/sqlite_columns.hpp"

namespace gantry::actors {

namespace {

constexpr const char* kEndedColumns =
    "SELECT name, phase, submitted_ms, finished_ms, submitter, queue, started_ms, record "
    "FROM jobs ";

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &statement_, nullptr) != SQLITE_OK) statement_ = nullptr;
  }
  ~Statement() { sqlite3_finalize(statement_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  sqlite3_stmt* get() const { return statement_; }

 private:
  sqlite3_stmt* statement_ = nullptr;
};

}  // namespace

SqliteJobHistory::SqliteJobHistory(std::filesystem::path db) : path_(std::move(db)) {
  if (sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw std::runtime_error("cannot open " + path_.string() + ": " + why);
  }
  // A read that meets the store's lock (WAL recovery) waits as the store's writes do.
  sqlite3_busy_timeout(db_, SqliteJobStore::kLockWaitLimitMs);
}

SqliteJobHistory::~SqliteJobHistory() {
  sqlite3_finalize(ended_name_);
  sqlite3_close(db_);
}

protocol::DescribeReply SqliteJobHistory::record_of(sqlite3_stmt* row) const {
  return ended_reply(EndedRow{column_text(row, 0), column_text(row, 1),
                              sqlite3_column_int64(row, 2), sqlite3_column_int64(row, 3),
                              column_text(row, 4), column_text(row, 5),
                              sqlite3_column_int64(row, 6), column_blob(row, 7)});
}

std::vector<protocol::JobInfo> SqliteJobHistory::ended(const std::set<std::string>& listed) {
  const std::string sql = std::string(kEndedColumns) + "WHERE phase IS NOT NULL ORDER BY row;";
  Statement statement(db_, sql.c_str());
  if (!statement.get()) fail("cannot read ended jobs from");
  std::vector<protocol::JobInfo> jobs;
  int status = SQLITE_ROW;
  while ((status = sqlite3_step(statement.get())) == SQLITE_ROW) {
    if (listed.count(column_text(statement.get(), 0))) continue;
    jobs.push_back(std::move(record_of(statement.get()).job));
  }
  if (status != SQLITE_DONE) fail("cannot read ended jobs from");
  return jobs;
}

std::vector<protocol::JobInfo> SqliteJobHistory::recent_ended(const std::set<std::string>& listed,
                                                        std::size_t limit) {
  const std::string sql =
      std::string(kEndedColumns) + "WHERE phase IS NOT NULL ORDER BY row DESC LIMIT ?1;";
  Statement statement(db_, sql.c_str());
  if (!statement.get()) fail("cannot read ended jobs from");
  // Listed ones are skipped after the read: read enough to skip them all.
  sqlite3_bind_int64(statement.get(), 1, static_cast<sqlite3_int64>(limit + listed.size()));
  std::vector<protocol::JobInfo> jobs;
  int status = SQLITE_ROW;
  while (jobs.size() < limit && (status = sqlite3_step(statement.get())) == SQLITE_ROW) {
    if (listed.count(column_text(statement.get(), 0))) continue;
    jobs.push_back(std::move(record_of(statement.get()).job));
  }
  if (status != SQLITE_DONE && status != SQLITE_ROW) fail("cannot read ended jobs from");
  std::reverse(jobs.begin(), jobs.end());
  return jobs;
}

std::optional<protocol::DescribeReply> SqliteJobHistory::describe(const std::string& name) {
  const std::string sql = std::string(kEndedColumns) +
                          "WHERE name = ?1 AND phase IS NOT NULL ORDER BY row DESC LIMIT 1;";
  Statement statement(db_, sql.c_str());
  if (!statement.get()) fail("cannot read ended jobs from");
  sqlite3_bind_text(statement.get(), 1, name.data(), static_cast<int>(name.size()),
                    SQLITE_TRANSIENT);
  const int status = sqlite3_step(statement.get());
  if (status == SQLITE_DONE) return std::nullopt;
  if (status != SQLITE_ROW) fail("cannot read ended jobs from");
  return record_of(statement.get());
}

bool SqliteJobHistory::holds_ended(std::string_view name) {
  if (!ended_name_ &&
      sqlite3_prepare_v2(db_, "SELECT 1 FROM jobs WHERE name = ?1 AND phase IS NOT NULL LIMIT 1;",
                         -1, &ended_name_, nullptr) != SQLITE_OK)
    fail("cannot read ended jobs from");
  sqlite3_reset(ended_name_);
  sqlite3_bind_text(ended_name_, 1, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
  const int status = sqlite3_step(ended_name_);
  if (status != SQLITE_ROW && status != SQLITE_DONE) fail("cannot read ended jobs from");
  return status == SQLITE_ROW;
}

void SqliteJobHistory::fail(const std::string& what) const {
  throw std::runtime_error(what + " " + path_.string() + ": " + sqlite3_errmsg(db_));
}

}  // namespace gantry::actors
