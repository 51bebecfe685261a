// The job store on one machine: <state>/gantry.db (SQLite, WAL).
#pragma once

#include <filesystem>
#include <functional>

#include "actors/job_store.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace gantry::actors {

class SqliteJobStore final : public JobStore {
 public:
  // Creates `state_dir` if missing and opens (or creates) gantry.db in it.
  // Throws std::runtime_error naming the path on failure, and refuses (never
  // opens empty) a state that is damaged: a database missing where
  // state.id says one was made, a WAL that lost committed writes, a database
  // that fails SQLite's quick check, or a schema from a newer hub.
  explicit SqliteJobStore(const std::filesystem::path& state_dir);
  ~SqliteJobStore() override;
  SqliteJobStore(const SqliteJobStore&) = delete;
  SqliteJobStore& operator=(const SqliteJobStore&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string where() const override { return path_.string(); }
  // A write that finds another connection's lock on the database (the
  // history reader's, gantry-hub --check's) waits for it, up to
  // kLockWaitLimitMs, instead of failing at once with "database is locked".
  // `observer` is called on each wait (tests await it).
  static constexpr int kLockWaitLimitMs = 5'000;
  void observe_lock_waits(std::function<void()> observer) {
    lock_wait_observer_ = std::move(observer);
  }
  bool created() const override { return created_; }
  // The marker a made store leaves in its directory.
  static std::filesystem::path marker_in(const std::filesystem::path& state_dir);
  // What is wrong with the state in `state_dir` before SQLite opens it; "" if nothing.
  static std::string damage_before_open(const std::filesystem::path& state_dir);
  // Counts and SQLite's full integrity check.
  StateSummary summary() override;
  std::unique_ptr<JobHistory> open_history() const override;

  void begin() override;
  void commit() override;
  void rollback() noexcept override;

  std::int64_t add(std::string_view name, std::string_view yaml, std::int64_t submitted_ms,
                   std::string_view submitter, std::string_view spec = {}) override;
  using JobStore::finish;
  void finish(const FinishedJob& job) override;
  std::vector<std::string> ended_submitters(std::string_view name) override;
  void forget_ended(std::string_view name) override;
  std::int64_t forget_expired(std::int64_t now, std::int64_t ended_by, std::int64_t limit) override;
  std::optional<std::int64_t> next_expiry(std::int64_t keep_finished_ms) override;
  void forget(std::int64_t row) override;
  void rename(std::int64_t row, std::string_view name) override;
  std::vector<StoredJob> unfinished() override;
  void record_dispatch(std::int64_t row, const StoredDispatch& dispatch) override;
  void set_cordoned(std::string_view cluster, bool cordoned) override;
  std::vector<std::string> cordoned_clusters() override;
  void save_queue(std::string_view name, std::string_view yaml) override;
  void drop_queue(std::string_view name) override;
  std::vector<std::string> queues() override;
  void save_priority_class(std::string_view name, std::string_view yaml) override;
  void drop_priority_class(std::string_view name) override;
  std::vector<std::string> priority_classes() override;
  // From 1 for a state that existed before state.id.
  std::uint64_t start_generation() override;
  std::uint64_t first_generation() override;

 private:
  void open();
  void close();
  void check_existing();
  std::string first_check_problem(const char* pragma);
  int user_version();
  std::int64_t table_count();
  std::int64_t count(const char* sql);
  void write_marker();
  std::int64_t meta(const char* key);
  void execute(const char* sql);
  void add_column(const char* name, const char* type);
  sqlite3_stmt* prepare(const char* sql);
  [[noreturn]] void fail(std::string_view what) const;
  static int wait_for_lock(void* store, int waits);

  std::filesystem::path path_;
  sqlite3* db_ = nullptr;
  bool created_ = false;
  sqlite3_stmt* insert_ = nullptr;
  sqlite3_stmt* finish_ = nullptr;
  sqlite3_stmt* forget_ = nullptr;
  sqlite3_stmt* forget_dispatch_ = nullptr;
  sqlite3_stmt* rename_ = nullptr;
  sqlite3_stmt* unfinished_ = nullptr;
  sqlite3_stmt* upsert_dispatch_ = nullptr;
  std::function<void()> lock_wait_observer_;
};

}  // namespace gantry::actors
