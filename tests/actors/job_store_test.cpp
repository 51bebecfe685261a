#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <future>
#include <memory>
#include <mutex>
#include <set>

#include "actors/sqlite_job_store.hpp"
#include "test_support.hpp"

// The SQLite store's own behaviour: its lock waits, old schemas, damaged
// files. What both backends do is in tests/stores/store_contract_test.cpp.
namespace gantry::actors {
namespace {

// Another connection holding the write lock (a reader recovering the WAL,
// gantry-hub --check) makes a write wait for it; before, the submission was
// refused with "database is locked" (gantry-bench-e2e saw 1 in 20,000).
TEST(JobStoreTest, AWriteWaitsForAnotherConnectionsLockInsteadOfFailing) {
  testing::TempDir dir;
  SqliteJobStore store(dir.path());
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open((dir.path() / "gantry.db").c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE;", nullptr, nullptr, nullptr), SQLITE_OK);
  // Set when the write waits for the lock, or when it returns without waiting.
  std::promise<void> blocked_or_done;
  std::once_flag once;
  const auto signal = [&] { std::call_once(once, [&] { blocked_or_done.set_value(); }); };
  store.observe_lock_waits(signal);
  std::future<std::int64_t> write = std::async(std::launch::async, [&] {
    try {
      const std::int64_t row = store.add("waits", "yaml: 1", 1000, "alice");
      signal();
      return row;
    } catch (...) {
      signal();
      throw;
    }
  });
  blocked_or_done.get_future().wait();
  ASSERT_EQ(sqlite3_exec(other, "COMMIT;", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(other);
  EXPECT_GT(write.get(), 0);
  ASSERT_EQ(store.unfinished().size(), 1u);
  EXPECT_EQ(store.unfinished()[0].name, "waits");
}

// A store written before jobs carried their submitter gets the column; its
// jobs come back with none.
TEST(JobStoreTest, AStoreFromBeforeSubmittersOpensAndItsJobsHaveNone) {
  testing::TempDir dir;
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir.path() / "gantry.db").c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "CREATE TABLE jobs (row INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT "
                           "NULL, yaml TEXT NOT NULL, submitted_ms INTEGER NOT NULL, phase TEXT, "
                           "finished_ms INTEGER);"
                           "INSERT INTO jobs (name, yaml, submitted_ms) VALUES ('old', 'y', 1);",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  SqliteJobStore store(dir.path());
  store.add("new", "yaml: 2", 2000, "alice");
  const std::vector<StoredJob> jobs = store.unfinished();
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].name, "old");
  EXPECT_EQ(jobs[0].submitter, "");
  EXPECT_EQ(jobs[1].submitter, "alice");
}

// Two states made apart (one lost, one new) do not start at the same
// generation, so their dispatch ids do not name each other's runs.
TEST(JobStoreTest, NewStatesStartAtDifferentGenerations) {
  std::set<std::uint64_t> firsts;
  for (int i = 0; i < 8; ++i) {
    testing::TempDir dir;
    firsts.insert(SqliteJobStore(dir.path()).start_generation());
  }
  EXPECT_GT(firsts.size(), 1u);
}

TEST(JobStoreTest, AStoreIsCreatedOnceAndLeavesItsMarker) {
  testing::TempDir dir;
  EXPECT_TRUE(SqliteJobStore(dir.path()).created());
  EXPECT_TRUE(std::filesystem::exists(SqliteJobStore::marker_in(dir.path())));
  EXPECT_FALSE(SqliteJobStore(dir.path()).created());
}

// What a test expects a refused state's error to name.
void expect_refused(const std::filesystem::path& state, const std::string& names) {
  try {
    SqliteJobStore store(state);
    FAIL() << "opened a damaged state";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
  }
}

TEST(JobStoreTest, AMissingDatabaseWhereAStoreWasMadeIsRefusedNotStartedEmpty) {
  testing::TempDir dir;
  SqliteJobStore(dir.path()).add("job", "yaml: 1", 1, "alice");
  std::filesystem::remove(dir.path() / "gantry.db");
  expect_refused(dir.path(), "gantry.db is missing");
  std::filesystem::remove(SqliteJobStore::marker_in(dir.path()));  // the operator's choice
  EXPECT_TRUE(SqliteJobStore(dir.path()).created());
}

TEST(JobStoreTest, ASchemaFromANewerHubIsRefused) {
  testing::TempDir dir;
  SqliteJobStore(dir.path()).add("job", "yaml: 1", 1, "alice");
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir.path() / "gantry.db").c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 99;", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  expect_refused(dir.path(), "schema version 99");
}

// A copy of a live store's files: the WAL still holds the commits (the
// store is open, so nothing checkpointed it), as after a kill -9.
std::filesystem::path crashed_copy(const std::filesystem::path& live,
                                   const std::filesystem::path& into) {
  std::filesystem::create_directories(into);
  for (const char* name : {"gantry.db", "gantry.db-wal", "gantry.db-shm", "state.id"})
    std::filesystem::copy_file(live / name, into / name);
  return into;
}

// A store with `jobs` jobs, each committed on its own, still open.
std::unique_ptr<SqliteJobStore> store_with_jobs(const std::filesystem::path& dir, int jobs) {
  auto store = std::make_unique<SqliteJobStore>(dir);
  for (int i = 0; i < jobs; ++i)
    store->add("job-" + std::to_string(i), std::string(2000, 'y'), i, "alice");
  return store;
}

std::uintmax_t size_of(const std::filesystem::path& path) {
  return std::filesystem::file_size(path);
}

TEST(JobStoreTest, AWholeCrashedStoreComesBackWithEveryJob) {
  testing::TempDir dir;
  const auto live = store_with_jobs(dir.path() / "live", 30);
  const auto copy = crashed_copy(dir.path() / "live", dir.path() / "copy");
  EXPECT_EQ(SqliteJobStore(copy).unfinished().size(), 30u);
}

TEST(JobStoreTest, AWalCutInHalfIsRefused) {
  testing::TempDir dir;
  const auto live = store_with_jobs(dir.path() / "live", 30);
  const auto copy = crashed_copy(dir.path() / "live", dir.path() / "copy");
  std::filesystem::resize_file(copy / "gantry.db-wal", size_of(copy / "gantry.db-wal") / 2);
  expect_refused(copy, "gantry.db-wal");
}

// Cut at a frame boundary, the log itself looks whole: its index tells.
TEST(JobStoreTest, AWalCutAtAFrameBoundaryIsRefused) {
  testing::TempDir dir;
  const auto live = store_with_jobs(dir.path() / "live", 30);
  const auto copy = crashed_copy(dir.path() / "live", dir.path() / "copy");
  const std::uintmax_t frame = 24 + 4096;
  const std::uintmax_t frames = (size_of(copy / "gantry.db-wal") - 32) / frame;
  ASSERT_GT(frames, 4u);
  std::filesystem::resize_file(copy / "gantry.db-wal", 32 + (frames / 2) * frame);
  expect_refused(copy, "frames were committed");
}

// A kill -9 between the writes of one frame leaves a partial frame of an
// uncommitted transaction: no loss, so the store opens.
TEST(JobStoreTest, APartialFrameAfterTheLastCommitIsNoDamage) {
  testing::TempDir dir;
  const auto live = store_with_jobs(dir.path() / "live", 30);
  const auto copy = crashed_copy(dir.path() / "live", dir.path() / "copy");
  {
    std::ofstream wal(copy / "gantry.db-wal", std::ios::binary | std::ios::app);
    wal << std::string(24 + 100, '\x01');
  }
  EXPECT_EQ(SqliteJobStore(copy).unfinished().size(), 30u);
}

void flip_bytes(const std::filesystem::path& path, std::uintmax_t from, int count,
                std::uintmax_t stride) {
  std::fstream file(path, std::ios::binary | std::ios::in | std::ios::out);
  for (int i = 0; i < count; ++i) {
    const auto at = static_cast<std::streamoff>(from + static_cast<std::uintmax_t>(i) * stride);
    file.seekg(at);
    char byte = 0;
    file.get(byte);
    file.seekp(at);
    file.put(static_cast<char>(byte ^ 0x5a));
  }
}

TEST(JobStoreTest, FlippedBytesInTheWalAreRefused) {
  testing::TempDir dir;
  const auto live = store_with_jobs(dir.path() / "live", 30);
  const auto copy = crashed_copy(dir.path() / "live", dir.path() / "copy");
  flip_bytes(copy / "gantry.db-wal", 32 + 24 + 100, 200, 97);
  expect_refused(copy, "gantry.db-wal");
}

// Without its index, a WAL whose committed frame fails its checksum is
// still refused.
TEST(JobStoreTest, FlippedBytesInTheWalAreRefusedWithoutItsIndex) {
  testing::TempDir dir;
  const auto live = store_with_jobs(dir.path() / "live", 30);
  const auto copy = crashed_copy(dir.path() / "live", dir.path() / "copy");
  std::filesystem::remove(copy / "gantry.db-shm");
  flip_bytes(copy / "gantry.db-wal", 32 + 24 + 100, 200, 97);
  expect_refused(copy, "fails its checksum");
}

// Damage to the b-tree pages of the database: SQLite's check finds it.
TEST(JobStoreTest, FlippedBytesInTheDatabaseAreRefused) {
  testing::TempDir dir;
  store_with_jobs(dir.path(), 30).reset();  // closed: checkpointed into gantry.db
  ASSERT_FALSE(std::filesystem::exists(dir.path() / "gantry.db-wal"));
  const std::uintmax_t pages = size_of(dir.path() / "gantry.db") / 4096;
  ASSERT_GT(pages, 4u);
  for (std::uintmax_t page = 1; page < pages; ++page)  // each page's b-tree header
    flip_bytes(dir.path() / "gantry.db", page * 4096, 8, 1);
  expect_refused(dir.path(), "gantry.db");
}

TEST(JobStoreTest, CreatesAMissingStateDirectory) {
  testing::TempDir dir;
  const auto nested = dir.path() / "a" / "b";
  SqliteJobStore store(nested);
  EXPECT_TRUE(std::filesystem::exists(nested / "gantry.db"));
  EXPECT_TRUE(store.unfinished().empty());
}

TEST(JobStoreTest, UnusableStateDirectoryIsAnErrorNamingThePath) {
  testing::TempDir dir;
  const auto file = dir.path() / "not-a-dir";
  { std::ofstream(file) << "x"; }
  try {
    SqliteJobStore store(file / "state");
    FAIL() << "opened a store under a regular file";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not-a-dir"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gantry::actors
