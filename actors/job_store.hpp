// Durable record of accepted jobs: <state>/gantry.db (SQLite). A job is
// written before its submission is acknowledged and marked with its terminal
// phase when it ends, so after a restart the hub re-submits exactly the jobs
// that had not ended. Each job's current dispatch is recorded before its
// Prepares (and again before its Commits) leave, so a restarted hub knows
// which parts it had committed; cordoned clusters stay cordoned.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace gantry::actors {

// A job's current dispatch as recorded: enough for a restarted hub to tell a
// part it had committed from one it had only prepared.
struct StoredDispatch {
  std::uint64_t id = 0;  // 0: none recorded
  bool committed = false;
  std::vector<std::string> clusters;  // by part index
  std::string rendezvous_host;
  std::int32_t rendezvous_port = 0;
};

struct StoredJob {
  std::int64_t row = 0;
  std::string name;
  std::string yaml;
  std::int64_t submitted_ms = 0;
  StoredDispatch dispatch;  // its last recorded dispatch, if any
  std::string submitter;    // the key that submitted it ("" before keys)
  // Its protocol::JobSpec as validated at submission, msgpack: a restart
  // rebuilds the job from it without parsing the YAML again ("" for jobs
  // stored before, which come back from `yaml`).
  std::string spec;
};

// A job's end as the store keeps it: the row stays, listed and described
// from `record`, until deleted, its ttl runs out (`expires_ms`) or the
// hub's --keep-finished does.
struct FinishedJob {
  std::int64_t row = 0;
  std::string phase;
  std::int64_t finished_ms = 0;
  std::string queue;
  std::int64_t started_ms = 0;  // 0: never ran
  std::int64_t gpu_milli = 0;   // GPUs the whole gang requested, x1000
  std::int64_t expires_ms = 0;  // its ttlSecondsAfterFinished ends then; 0: none
  std::string record;           // msgpack protocol::DescribeReply: what describe showed at its end
};

// What `gantry-hub --check` reports of a store.
struct StateSummary {
  int schema_version = 0;
  std::int64_t jobs = 0;
  std::int64_t unfinished = 0;
  std::int64_t queues = 0;
  std::string integrity;  // "" when SQLite's integrity check passes, else its first finding
};

class JobStore {
 public:
  // Creates `state_dir` if missing and opens (or creates) gantry.db in it.
  // Throws std::runtime_error naming the path on failure, and refuses (never
  // opens empty) a state that is damaged: a database missing where
  // state.id says one was made, a WAL that lost committed writes, a database
  // that fails SQLite's quick check, or a schema from a newer hub.
  explicit JobStore(const std::filesystem::path& state_dir);
  ~JobStore();
  JobStore(const JobStore&) = delete;
  JobStore& operator=(const JobStore&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // A write that finds another connection's lock on the database (the
  // history reader's, gantry-hub --check's) waits for it, up to
  // kLockWaitLimitMs, instead of failing at once with "database is locked".
  // `observer` is called on each wait (tests await it).
  static constexpr int kLockWaitLimitMs = 5'000;
  void observe_lock_waits(std::function<void()> observer) {
    lock_wait_observer_ = std::move(observer);
  }
  // True when this opening made the store (a new or emptied state): what
  // agents still run is none of its jobs, and must not be stopped for that.
  bool created() const { return created_; }
  // The marker a made store leaves in its directory.
  static std::filesystem::path marker_in(const std::filesystem::path& state_dir);
  // What is wrong with the state in `state_dir` before SQLite opens it; "" if nothing.
  static std::string damage_before_open(const std::filesystem::path& state_dir);
  // Counts and SQLite's full integrity check, for gantry-hub --check.
  StateSummary summary();

  // Groups the writes between begin() and commit() in one transaction;
  // rollback() undoes them. Without begin(), each write commits on its own.
  void begin();
  void commit();
  void rollback() noexcept;

  // Returns the new row. Durable once committed; throws std::runtime_error on
  // failure.
  std::int64_t add(std::string_view name, std::string_view yaml, std::int64_t submitted_ms,
                   std::string_view submitter, std::string_view spec = {});
  // Records how the job ended; it will not come back after a restart, and
  // stays listed (from its record) until it is forgotten.
  void finish(const FinishedJob& job);
  void finish(std::int64_t row, std::string_view phase, std::int64_t finished_ms);
  // The submitters of the ended jobs named `name` (none: no such ended job).
  std::vector<std::string> ended_submitters(std::string_view name);
  // Forgets the ended jobs named `name` (gantryctl delete job after a
  // restart, when only the store knows them).
  void forget_ended(std::string_view name);
  // Forgets at most `limit` of the ended jobs whose ttl ran out by `now`, or
  // that ended at or before `ended_by`; returns how many. Inclusive as
  // next_expiry is: a wake-up at the expiry it gave finds the job due.
  std::int64_t forget_expired(std::int64_t now, std::int64_t ended_by, std::int64_t limit);
  // When the next ended job expires, given --keep-finished; nullopt: none.
  std::optional<std::int64_t> next_expiry(std::int64_t keep_finished_ms);
  // Removes a job's row and its dispatch record: a submission refused after
  // it was written, or a job deleted (gantryctl delete job, its ttl).
  void forget(std::int64_t row);
  // The name the hub made for a job submitted with metadata.generateName,
  // so a restart brings it back under that name.
  void rename(std::int64_t row, std::string_view name);
  // Jobs without a terminal phase, oldest first, with their last dispatch.
  std::vector<StoredJob> unfinished();
  // The job's current dispatch (one per job: replaces the one before).
  void record_dispatch(std::int64_t row, const StoredDispatch& dispatch);
  // Cordoned clusters stay cordoned across restarts.
  void set_cordoned(std::string_view cluster, bool cordoned);
  std::vector<std::string> cordoned_clusters();  // by name
  // Applied Volcano Queue documents, so queues outlive a restart (their jobs
  // are re-submitted into them). Applying a name again replaces its document.
  void save_queue(std::string_view name, std::string_view yaml);
  void drop_queue(std::string_view name);
  std::vector<std::string> queues();  // in the order they were first applied
  // Applied PriorityClass documents, by name, likewise.
  void save_priority_class(std::string_view name, std::string_view yaml);
  void drop_priority_class(std::string_view name);
  std::vector<std::string> priority_classes();
  // Counts hub starts on this state: one more each time, from 1 for a state
  // that existed before state.id, from a random point for one made now.
  // Dispatch ids carry it, so no id names two dispatches across restarts.
  std::uint64_t start_generation();
  // The generation this state began with: dispatches of generations below
  // it, or above the current one, were handed out before this state was
  // made, by a hub whose state is lost.
  std::uint64_t first_generation();

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
