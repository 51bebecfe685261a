#include "actors/sqlite_job_store.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include "protocol/wire_codec.hpp"  // msgpack, and the encoding of wire structs
#include <random>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "actors/sqlite_columns.hpp"
#include "actors/sqlite_job_history.hpp"
#include "actors/sqlite_wal_check.hpp"
#include "actors/utc_now.hpp"
#include "support/random_hex.hpp"

namespace gantry::actors {

namespace {

constexpr const char* kSchema =
    "CREATE TABLE IF NOT EXISTS jobs ("
    "  row INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  name TEXT NOT NULL,"
    "  yaml TEXT NOT NULL,"
    "  submitted_ms INTEGER NOT NULL,"
    "  phase TEXT,"
    "  finished_ms INTEGER);"
    "CREATE INDEX IF NOT EXISTS jobs_unfinished ON jobs(row) WHERE phase IS NULL;"
    "CREATE INDEX IF NOT EXISTS jobs_by_name ON jobs(name);"
    "CREATE TABLE IF NOT EXISTS queues ("
    "  name TEXT PRIMARY KEY,"
    "  yaml TEXT NOT NULL,"
    "  position INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS hub_meta ("
    "  key TEXT PRIMARY KEY,"
    "  value INTEGER NOT NULL);"
    // One current dispatch per job; `clusters`: its parts' clusters by part
    // index, a msgpack array (one row, one statement per record).
    "CREATE TABLE IF NOT EXISTS dispatches ("
    "  job_row INTEGER PRIMARY KEY,"
    "  dispatch_id INTEGER NOT NULL,"
    "  committed INTEGER NOT NULL,"
    "  rendezvous_host TEXT NOT NULL,"
    "  rendezvous_port INTEGER NOT NULL,"
    "  clusters BLOB NOT NULL);"
    "CREATE TABLE IF NOT EXISTS clusters ("
    "  name TEXT PRIMARY KEY,"
    "  cordoned INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS priority_classes ("
    "  name TEXT PRIMARY KEY,"
    "  yaml TEXT NOT NULL);";

// PRAGMA user_version of the schema above. 0: a store from before versions
// (its jobs table may lack `submitter`).
// 1: jobs.submitter. 2: ended jobs keep their record (queue, started_ms,
// gpu_milli, expires_ms, record); jobs keep their validated spec.
constexpr int kSchemaVersion = 2;

bool non_empty_file(const std::filesystem::path& path) {
  std::error_code error;
  return std::filesystem::file_size(path, error) > 0 && !error;
}

// Resets a statement on every exit path, so it can be reused.
class StatementUse {
 public:
  explicit StatementUse(sqlite3_stmt* statement) : statement_(statement) {}
  ~StatementUse() {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
  }
  StatementUse(const StatementUse&) = delete;
  StatementUse& operator=(const StatementUse&) = delete;

 private:
  sqlite3_stmt* statement_;
};

void bind_text(sqlite3_stmt* statement, int index, std::string_view text) {
  sqlite3_bind_text(statement, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

// A dispatch's clusters, by part index, from their msgpack array; none when
// the cell does not hold one.
std::vector<std::string> unpack_clusters(sqlite3_stmt* statement, int column) {
  const auto* data = static_cast<const char*>(sqlite3_column_blob(statement, column));
  const int size = sqlite3_column_bytes(statement, column);
  if (data == nullptr || size <= 0) return {};
  try {
    return msgpack::unpack(data, static_cast<std::size_t>(size))
        .get()
        .as<std::vector<std::string>>();
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace

std::uint64_t random_first_generation() {
  std::random_device random;
  return 1 + std::uniform_int_distribution<std::uint64_t>(0, (1u << 22) - 1)(random);
}

SqliteJobStore::SqliteJobStore(const std::filesystem::path& state_dir)
    : path_(state_dir / "gantry.db") {
  std::error_code ec;
  std::filesystem::create_directories(state_dir, ec);
  if (ec) {
    throw std::runtime_error("cannot create state directory " + state_dir.string() + ": " +
                             ec.message());
  }
  if (const std::string damage = damage_before_open(state_dir); !damage.empty())
    throw std::runtime_error(damage);
  try {
    open();
  } catch (...) {
    close();
    throw;
  }
}

std::filesystem::path SqliteJobStore::marker_in(const std::filesystem::path& state_dir) {
  return state_dir / "state.id";
}

// What SQLite would open silently wrong: a database gone where a store was
// made, or a WAL that lost committed writes.
std::string SqliteJobStore::damage_before_open(const std::filesystem::path& state_dir) {
  const std::filesystem::path db = state_dir / "gantry.db";
  const std::filesystem::path wal = state_dir / "gantry.db-wal";
  const std::filesystem::path marker = marker_in(state_dir);
  if (!std::filesystem::exists(db)) {
    if (std::filesystem::exists(marker)) {
      return db.string() + " is missing, but " + marker.string() +
             " says a store was made here: refusing to start on an empty state. Restore the "
             "database, or remove " +
             marker.string() + " to start a new, empty state on purpose";
    }
    if (non_empty_file(wal)) {
      return db.string() + " is missing but its WAL " + wal.string() +
             " is there: refusing to start on an empty state";
    }
    return "";
  }
  const std::string damage = wal_damage(wal, state_dir / "gantry.db-shm");
  if (damage.empty()) return "";
  return wal.string() + ": " + damage +
         ". Starting on it would lose committed writes silently, so the hub refuses. Keep a "
         "copy of the state directory; to start from what can be read, move the WAL and its "
         "-shm file aside (gantry-hub --state DIR --check then tells what is left)";
}

void SqliteJobStore::open() {
  const bool existed = std::filesystem::exists(path_);
  if (sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK)
    fail("cannot open");
  sqlite3_busy_handler(db_, &SqliteJobStore::wait_for_lock, this);
  // WAL with synchronous=NORMAL: a commit survives a crash of the hub process
  // (what a restart needs) without an fsync per submitted job.
  execute("PRAGMA journal_mode=WAL;");
  execute("PRAGMA synchronous=NORMAL;");
  if (existed) check_existing();
  created_ = !existed || table_count() == 0;
  execute(kSchema);
  add_column("submitter", "TEXT NOT NULL DEFAULT ''");
  add_column("queue", "TEXT");
  add_column("started_ms", "INTEGER");
  add_column("gpu_milli", "INTEGER");
  add_column("expires_ms", "INTEGER");
  add_column("record", "BLOB");
  add_column("spec", "BLOB");
  execute("CREATE INDEX IF NOT EXISTS jobs_ended ON jobs(finished_ms) WHERE phase IS NOT NULL;");
  execute(
      "CREATE INDEX IF NOT EXISTS jobs_expiring ON jobs(expires_ms) WHERE expires_ms IS NOT "
      "NULL;");
  execute(("PRAGMA user_version = " + std::to_string(kSchemaVersion) + ";").c_str());
  if (!std::filesystem::exists(marker_in(path_.parent_path()))) write_marker();
  insert_ = prepare(
      "INSERT INTO jobs (name, yaml, submitted_ms, submitter, spec) VALUES (?1, ?2, ?3, ?4, ?5);");
  finish_ = prepare(
      "UPDATE jobs SET phase = ?2, finished_ms = ?3, queue = ?4, started_ms = ?5, gpu_milli = ?6, "
      "expires_ms = ?7, record = ?8 WHERE row = ?1;");
  forget_ = prepare("DELETE FROM jobs WHERE row = ?1;");
  forget_dispatch_ = prepare("DELETE FROM dispatches WHERE job_row = ?1;");
  rename_ = prepare("UPDATE jobs SET name = ?2 WHERE row = ?1;");
  unfinished_ = prepare(
      "SELECT j.row, j.name, j.yaml, j.submitted_ms, d.dispatch_id, d.committed, "
      "d.rendezvous_host, d.rendezvous_port, d.clusters, j.submitter, j.spec "
      "FROM jobs j LEFT JOIN dispatches d ON d.job_row = j.row "
      "WHERE j.phase IS NULL ORDER BY j.row;");
  upsert_dispatch_ = prepare(
      "INSERT INTO dispatches (job_row, dispatch_id, committed, rendezvous_host, rendezvous_port, "
      "clusters) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(job_row) DO UPDATE SET "
      "dispatch_id = excluded.dispatch_id, committed = excluded.committed, "
      "rendezvous_host = excluded.rendezvous_host, rendezvous_port = excluded.rendezvous_port, "
      "clusters = excluded.clusters;");
}

// SQLite's busy handler: true (1) to try again after a short wait, false
// (0) once the waits add up to the limit.
int SqliteJobStore::wait_for_lock(void* store, int waits) {
  constexpr int kStepMs = 5;
  if (waits * kStepMs >= kLockWaitLimitMs) return 0;
  const auto& observer = static_cast<SqliteJobStore*>(store)->lock_wait_observer_;
  if (observer) observer();
  std::this_thread::sleep_for(std::chrono::milliseconds(kStepMs));
  return 1;
}

SqliteJobStore::~SqliteJobStore() {
  close();
}

void SqliteJobStore::close() {
  for (sqlite3_stmt* statement :
       {insert_, finish_, forget_, unfinished_, upsert_dispatch_, forget_dispatch_, rename_}) {
    sqlite3_finalize(statement);
  }
  sqlite3_close(db_);
  insert_ = finish_ = forget_ = unfinished_ = upsert_dispatch_ = forget_dispatch_ = rename_ =
      nullptr;
  db_ = nullptr;
}

// A store that SQLite finds damaged, or one a newer hub wrote, is refused:
// loading what can be read of it would be a silent loss.
void SqliteJobStore::check_existing() {
  const std::string check = first_check_problem("PRAGMA quick_check(1);");
  if (!check.empty()) {
    throw std::runtime_error(path_.string() + " fails SQLite's integrity check (" + check +
                             "): refusing to start on a damaged state; keep a copy and restore "
                             "the directory from a backup");
  }
  const int version = user_version();
  if (version > kSchemaVersion) {
    throw std::runtime_error(path_.string() + " has schema version " + std::to_string(version) +
                             ", written by a newer gantry-hub; this one knows versions up to " +
                             std::to_string(kSchemaVersion));
  }
}

std::string SqliteJobStore::first_check_problem(const char* pragma) {
  sqlite3_stmt* statement = prepare(pragma);
  std::string problem;
  int status = SQLITE_ROW;
  while ((status = sqlite3_step(statement)) == SQLITE_ROW) {
    const std::string line = column_text(statement, 0);
    if (line != "ok" && problem.empty()) problem = line;
  }
  const bool failed = status != SQLITE_DONE;
  sqlite3_finalize(statement);
  if (failed) fail("cannot check");
  return problem;
}

int SqliteJobStore::user_version() {
  sqlite3_stmt* statement = prepare("PRAGMA user_version;");
  const int status = sqlite3_step(statement);
  const int version = status == SQLITE_ROW ? sqlite3_column_int(statement, 0) : -1;
  sqlite3_finalize(statement);
  if (status != SQLITE_ROW) fail("cannot read the schema version of");
  return version;
}

std::int64_t SqliteJobStore::table_count() {
  return count("SELECT count(*) FROM sqlite_master WHERE type = 'table';");
}

std::int64_t SqliteJobStore::count(const char* sql) {
  sqlite3_stmt* statement = prepare(sql);
  const int status = sqlite3_step(statement);
  const std::int64_t n = status == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
  sqlite3_finalize(statement);
  if (status != SQLITE_ROW) fail("cannot count in");
  return n;
}

// Made once the store exists: from then on, a missing database is a loss,
// not a first start.
void SqliteJobStore::write_marker() {
  const std::filesystem::path marker = marker_in(path_.parent_path());
  std::ofstream out(marker);
  out << "gantry-hub state " << support::random_hex(16) << " made " << utc_now_text() << "\n";
  out.close();
  if (!out) throw std::runtime_error("cannot write " + marker.string());
}

StateSummary SqliteJobStore::summary() {
  StateSummary summary;
  summary.schema_version = user_version();
  summary.jobs = count("SELECT count(*) FROM jobs;");
  summary.unfinished = count("SELECT count(*) FROM jobs WHERE phase IS NULL;");
  summary.queues = count("SELECT count(*) FROM queues;");
  summary.integrity = first_check_problem("PRAGMA integrity_check(10);");
  return summary;
}

std::unique_ptr<JobHistory> SqliteJobStore::open_history() const {
  return std::make_unique<SqliteJobHistory>(path_);
}

void SqliteJobStore::begin() {
  execute("BEGIN IMMEDIATE;");
}

void SqliteJobStore::commit() {
  execute("COMMIT;");
}

void SqliteJobStore::rollback() noexcept {
  // Fails only when no transaction is open, which leaves nothing to undo.
  sqlite3_exec(db_, "ROLLBACK;", nullptr, nullptr, nullptr);
}

// Stores of an earlier schema get the columns added since, empty for their
// jobs (a submitter of "": submitted when nobody was asked for a key).
void SqliteJobStore::add_column(const char* name, const char* type) {
  sqlite3_stmt* columns = prepare("SELECT 1 FROM pragma_table_info('jobs') WHERE name = ?1;");
  sqlite3_bind_text(columns, 1, name, -1, SQLITE_STATIC);
  const int status = sqlite3_step(columns);
  sqlite3_finalize(columns);
  if (status == SQLITE_ROW) return;
  if (status != SQLITE_DONE) fail("cannot read the jobs table of");
  execute(("ALTER TABLE jobs ADD COLUMN " + std::string(name) + " " + type + ";").c_str());
}

std::int64_t SqliteJobStore::add(std::string_view name, std::string_view yaml, std::int64_t submitted_ms,
                           std::string_view submitter, std::string_view spec) {
  StatementUse use(insert_);
  bind_text(insert_, 1, name);
  bind_text(insert_, 2, yaml);
  sqlite3_bind_int64(insert_, 3, submitted_ms);
  bind_text(insert_, 4, submitter);
  if (!spec.empty())
    sqlite3_bind_blob(insert_, 5, spec.data(), static_cast<int>(spec.size()), SQLITE_TRANSIENT);
  if (sqlite3_step(insert_) != SQLITE_DONE)
    fail("cannot record job \"" + std::string(name) + "\" in");
  return sqlite3_last_insert_rowid(db_);
}

void SqliteJobStore::finish(const FinishedJob& job) {
  StatementUse use(finish_);
  sqlite3_bind_int64(finish_, 1, job.row);
  bind_text(finish_, 2, job.phase);
  sqlite3_bind_int64(finish_, 3, job.finished_ms);
  bind_text(finish_, 4, job.queue);
  sqlite3_bind_int64(finish_, 5, job.started_ms);
  sqlite3_bind_int64(finish_, 6, job.gpu_milli);
  if (job.expires_ms > 0) sqlite3_bind_int64(finish_, 7, job.expires_ms);
  if (!job.record.empty()) {
    sqlite3_bind_blob(finish_, 8, job.record.data(), static_cast<int>(job.record.size()),
                      SQLITE_TRANSIENT);
  }
  if (sqlite3_step(finish_) != SQLITE_DONE) fail("cannot record the end of a job in");
}

std::vector<std::string> SqliteJobStore::ended_submitters(std::string_view name) {
  sqlite3_stmt* statement =
      prepare("SELECT submitter FROM jobs WHERE name = ?1 AND phase IS NOT NULL;");
  bind_text(statement, 1, name);
  std::vector<std::string> submitters;
  int status = SQLITE_ROW;
  while ((status = sqlite3_step(statement)) == SQLITE_ROW)
    submitters.push_back(column_text(statement, 0));
  sqlite3_finalize(statement);
  if (status != SQLITE_DONE) fail("cannot read ended jobs from");
  return submitters;
}

void SqliteJobStore::forget_ended(std::string_view name) {
  sqlite3_stmt* statement = prepare(
      "DELETE FROM dispatches WHERE job_row IN (SELECT row FROM jobs WHERE name = ?1 AND phase IS "
      "NOT NULL);");
  bind_text(statement, 1, name);
  int status = sqlite3_step(statement);
  sqlite3_finalize(statement);
  if (status != SQLITE_DONE) fail("cannot remove a dispatch from");
  statement = prepare("DELETE FROM jobs WHERE name = ?1 AND phase IS NOT NULL;");
  bind_text(statement, 1, name);
  status = sqlite3_step(statement);
  sqlite3_finalize(statement);
  if (status != SQLITE_DONE) fail("cannot remove a job from");
}

// Two index lookups (jobs_expiring, jobs_ended), not a scan of every ended
// job: the store asks at every expiry.
std::optional<std::int64_t> SqliteJobStore::next_expiry(std::int64_t keep_finished_ms) {
  std::optional<std::int64_t> next;
  const auto earliest = [&](const char* sql, std::int64_t plus) {
    sqlite3_stmt* statement = prepare(sql);
    const int status = sqlite3_step(statement);
    if (status == SQLITE_ROW && sqlite3_column_type(statement, 0) != SQLITE_NULL) {
      const std::int64_t at = sqlite3_column_int64(statement, 0) + plus;
      next = next ? std::min(*next, at) : at;
    }
    sqlite3_finalize(statement);
    if (status != SQLITE_ROW) fail("cannot read ended jobs from");
  };
  earliest("SELECT MIN(expires_ms) FROM jobs WHERE expires_ms IS NOT NULL;", 0);
  earliest("SELECT MIN(finished_ms) FROM jobs WHERE phase IS NOT NULL;", keep_finished_ms);
  return next;
}

std::int64_t SqliteJobStore::forget_expired(std::int64_t now, std::int64_t ended_by, std::int64_t limit) {
  // Each half through its index; a row in both is deleted once.
  sqlite3_stmt* statement = prepare(
      "DELETE FROM jobs WHERE row IN (SELECT row FROM jobs WHERE expires_ms IS NOT NULL AND "
      "expires_ms <= ?1 UNION SELECT row FROM jobs WHERE phase IS NOT NULL AND finished_ms <= ?2 "
      "LIMIT ?3) RETURNING row;");
  sqlite3_bind_int64(statement, 1, now);
  sqlite3_bind_int64(statement, 2, ended_by);
  sqlite3_bind_int64(statement, 3, limit);
  std::vector<std::int64_t> rows;
  int status = SQLITE_ROW;
  while ((status = sqlite3_step(statement)) == SQLITE_ROW)
    rows.push_back(sqlite3_column_int64(statement, 0));
  sqlite3_finalize(statement);
  if (status != SQLITE_DONE) fail("cannot forget expired jobs in");
  for (const std::int64_t row : rows) {
    StatementUse dispatch_use(forget_dispatch_);
    sqlite3_bind_int64(forget_dispatch_, 1, row);
    if (sqlite3_step(forget_dispatch_) != SQLITE_DONE) fail("cannot remove a dispatch from");
  }
  return static_cast<std::int64_t>(rows.size());
}

void SqliteJobStore::forget(std::int64_t row) {
  StatementUse use(forget_);
  sqlite3_bind_int64(forget_, 1, row);
  if (sqlite3_step(forget_) != SQLITE_DONE) fail("cannot remove a job from");
  StatementUse dispatch_use(forget_dispatch_);
  sqlite3_bind_int64(forget_dispatch_, 1, row);
  if (sqlite3_step(forget_dispatch_) != SQLITE_DONE) fail("cannot remove a dispatch from");
}

void SqliteJobStore::rename(std::int64_t row, std::string_view name) {
  StatementUse use(rename_);
  sqlite3_bind_int64(rename_, 1, row);
  bind_text(rename_, 2, name);
  if (sqlite3_step(rename_) != SQLITE_DONE) fail("cannot name a job in");
}

std::vector<StoredJob> SqliteJobStore::unfinished() {
  std::vector<StoredJob> jobs;
  {
    StatementUse use(unfinished_);
    int status = SQLITE_ROW;
    while ((status = sqlite3_step(unfinished_)) == SQLITE_ROW) {
      StoredDispatch dispatch;
      if (sqlite3_column_type(unfinished_, 4) != SQLITE_NULL) {
        dispatch.id = static_cast<std::uint64_t>(sqlite3_column_int64(unfinished_, 4));
        dispatch.committed = sqlite3_column_int(unfinished_, 5) != 0;
        dispatch.rendezvous_host = column_text(unfinished_, 6);
        dispatch.rendezvous_port = sqlite3_column_int(unfinished_, 7);
        dispatch.clusters = unpack_clusters(unfinished_, 8);
      }
      jobs.push_back(StoredJob{sqlite3_column_int64(unfinished_, 0), column_text(unfinished_, 1),
                               column_text(unfinished_, 2), sqlite3_column_int64(unfinished_, 3),
                               std::move(dispatch), column_text(unfinished_, 9),
                               column_blob(unfinished_, 10)});
    }
    if (status != SQLITE_DONE) fail("cannot read jobs from");
  }
  return jobs;
}

void SqliteJobStore::record_dispatch(std::int64_t row, const StoredDispatch& dispatch) {
  msgpack::sbuffer clusters;
  msgpack::pack(clusters, dispatch.clusters);
  StatementUse use(upsert_dispatch_);
  sqlite3_bind_int64(upsert_dispatch_, 1, row);
  sqlite3_bind_int64(upsert_dispatch_, 2, static_cast<std::int64_t>(dispatch.id));
  sqlite3_bind_int(upsert_dispatch_, 3, dispatch.committed ? 1 : 0);
  bind_text(upsert_dispatch_, 4, dispatch.rendezvous_host);
  sqlite3_bind_int(upsert_dispatch_, 5, dispatch.rendezvous_port);
  sqlite3_bind_blob(upsert_dispatch_, 6, clusters.data(), static_cast<int>(clusters.size()),
                    SQLITE_TRANSIENT);
  if (sqlite3_step(upsert_dispatch_) != SQLITE_DONE) fail("cannot record a dispatch in");
}

// Cordons are rare: plain statements, prepared per call.
void SqliteJobStore::set_cordoned(std::string_view cluster, bool cordoned) {
  sqlite3_stmt* statement = prepare(cordoned ? "INSERT INTO clusters(name, cordoned) VALUES(?1, 1) "
                                               "ON CONFLICT(name) DO UPDATE SET cordoned = 1;"
                                             : "DELETE FROM clusters WHERE name = ?1;");
  bind_text(statement, 1, cluster);
  const int status = sqlite3_step(statement);
  sqlite3_finalize(statement);
  if (status != SQLITE_DONE) fail("cannot record a cordon in");
}

std::vector<std::string> SqliteJobStore::cordoned_clusters() {
  sqlite3_stmt* statement = prepare("SELECT name FROM clusters WHERE cordoned != 0 ORDER BY name;");
  std::vector<std::string> out;
  int status = SQLITE_ROW;
  while ((status = sqlite3_step(statement)) == SQLITE_ROW) out.push_back(column_text(statement, 0));
  sqlite3_finalize(statement);
  if (status != SQLITE_DONE) fail("cannot read clusters from");
  return out;
}

// Queues are few and change rarely: plain statements, prepared per call.
void SqliteJobStore::save_queue(std::string_view name, std::string_view yaml) {
  sqlite3_stmt* statement = prepare(
      "INSERT INTO queues(name, yaml, position) VALUES(?1, ?2, (SELECT COALESCE(MAX(position), 0) "
      "+ 1 "
      "FROM queues)) ON CONFLICT(name) DO UPDATE SET yaml = excluded.yaml;");
  sqlite3_bind_text(statement, 1, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
  sqlite3_bind_text(statement, 2, yaml.data(), static_cast<int>(yaml.size()), SQLITE_TRANSIENT);
  const int status = sqlite3_step(statement);
  sqlite3_finalize(statement);
  if (status != SQLITE_DONE) fail("cannot record a queue in");
}

void SqliteJobStore::save_priority_class(std::string_view name, std::string_view yaml) {
  sqlite3_stmt* statement = prepare(
      "INSERT INTO priority_classes(name, yaml) VALUES(?1, ?2) ON CONFLICT(name) DO UPDATE SET "
      "yaml = excluded.yaml;");
  sqlite3_bind_text(statement, 1, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
  sqlite3_bind_text(statement, 2, yaml.data(), static_cast<int>(yaml.size()), SQLITE_TRANSIENT);
  const int status = sqlite3_step(statement);
  sqlite3_finalize(statement);
  if (status != SQLITE_DONE) fail("cannot record a PriorityClass in");
}

void SqliteJobStore::drop_priority_class(std::string_view name) {
  sqlite3_stmt* statement = prepare("DELETE FROM priority_classes WHERE name = ?1;");
  sqlite3_bind_text(statement, 1, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
  const int status = sqlite3_step(statement);
  sqlite3_finalize(statement);
  if (status != SQLITE_DONE) fail("cannot remove a PriorityClass from");
}

std::vector<std::string> SqliteJobStore::priority_classes() {
  sqlite3_stmt* statement = prepare("SELECT yaml FROM priority_classes ORDER BY name;");
  std::vector<std::string> out;
  int status = SQLITE_ROW;
  while ((status = sqlite3_step(statement)) == SQLITE_ROW) out.push_back(column_text(statement, 0));
  sqlite3_finalize(statement);
  if (status != SQLITE_DONE) fail("cannot read PriorityClasses from");
  return out;
}

void SqliteJobStore::drop_queue(std::string_view name) {
  sqlite3_stmt* statement = prepare("DELETE FROM queues WHERE name = ?1;");
  sqlite3_bind_text(statement, 1, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
  const int status = sqlite3_step(statement);
  sqlite3_finalize(statement);
  if (status != SQLITE_DONE) fail("cannot remove a queue from");
}

std::vector<std::string> SqliteJobStore::queues() {
  sqlite3_stmt* statement = prepare("SELECT yaml FROM queues ORDER BY position;");
  std::vector<std::string> out;
  int status = SQLITE_ROW;
  while ((status = sqlite3_step(statement)) == SQLITE_ROW) out.push_back(column_text(statement, 0));
  sqlite3_finalize(statement);
  if (status != SQLITE_DONE) fail("cannot read queues from");
  return out;
}

std::uint64_t SqliteJobStore::start_generation() {
  if (created_ && meta("generation") == 0) {
    const std::string first = std::to_string(random_first_generation());
    execute(("INSERT INTO hub_meta(key, value) VALUES('generation', " + first +
             "), ('first_generation', " + first + ");")
                .c_str());
  } else {
    execute(
        "INSERT INTO hub_meta(key, value) VALUES('generation', 1) "
        "ON CONFLICT(key) DO UPDATE SET value = value + 1;");
  }
  const std::int64_t generation = meta("generation");
  if (generation <= 0) fail("cannot read the hub generation from");
  return static_cast<std::uint64_t>(generation);
}

std::uint64_t SqliteJobStore::first_generation() {
  const std::int64_t first = meta("first_generation");
  return first > 0 ? static_cast<std::uint64_t>(first) : 1;
}

// A hub_meta value, 0 when absent.
std::int64_t SqliteJobStore::meta(const char* key) {
  sqlite3_stmt* statement = prepare("SELECT value FROM hub_meta WHERE key = ?1;");
  sqlite3_bind_text(statement, 1, key, -1, SQLITE_STATIC);
  const int status = sqlite3_step(statement);
  const std::int64_t value = status == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
  sqlite3_finalize(statement);
  if (status != SQLITE_ROW && status != SQLITE_DONE) fail("cannot read hub_meta from");
  return value;
}

void SqliteJobStore::execute(const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : "unknown error";
    sqlite3_free(message);
    throw std::runtime_error(path_.string() + ": " + text);
  }
}

sqlite3_stmt* SqliteJobStore::prepare(const char* sql) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db_, sql, -1, &statement, nullptr) != SQLITE_OK) fail("cannot prepare");
  return statement;
}

void SqliteJobStore::fail(std::string_view what) const {
  throw std::runtime_error(std::string(what) + " " + path_.string() + ": " +
                           (db_ ? sqlite3_errmsg(db_) : "out of memory"));
}

}  // namespace gantry::actors
