#include "actors/job_store.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>

#include "test_support.hpp"

namespace gantry::actors {
namespace {

TEST(JobStoreTest, UnfinishedJobsSurviveReopeningInSubmissionOrder) {
  testing::TempDir dir;
  {
    JobStore store(dir.path());
    const std::int64_t first = store.add("first", "yaml: 1", 1000, "alice");
    const std::int64_t done = store.add("done", "yaml: 2", 2000, "alice");
    const std::int64_t refused = store.add("refused", "yaml: 3", 3000, "alice");
    store.add("last", "yaml: 4", 4000, "bob");
    EXPECT_GT(first, 0);
    store.finish(done, "Completed", 5000);
    store.forget(refused);
  }
  JobStore reopened(dir.path());
  const std::vector<StoredJob> jobs = reopened.unfinished();
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].name, "first");
  EXPECT_EQ(jobs[0].yaml, "yaml: 1");
  EXPECT_EQ(jobs[0].submitted_ms, 1000);
  EXPECT_EQ(jobs[0].submitter, "alice");
  EXPECT_EQ(jobs[1].name, "last");
  EXPECT_EQ(jobs[1].submitter, "bob");
  EXPECT_LT(jobs[0].row, jobs[1].row);
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
  JobStore store(dir.path());
  store.add("new", "yaml: 2", 2000, "alice");
  const std::vector<StoredJob> jobs = store.unfinished();
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].name, "old");
  EXPECT_EQ(jobs[0].submitter, "");
  EXPECT_EQ(jobs[1].submitter, "alice");
}

TEST(JobStoreTest, ABatchIsKeptWhenCommittedAndGoneWhenRolledBack) {
  testing::TempDir dir;
  {
    JobStore store(dir.path());
    store.begin();
    store.add("kept-1", "yaml: 1", 1000, "alice");
    store.add("kept-2", "yaml: 2", 2000, "alice");
    store.commit();
    store.begin();
    store.add("undone", "yaml: 3", 3000, "alice");
    store.rollback();
    store.rollback();  // nothing open: harmless
  }
  JobStore reopened(dir.path());
  const std::vector<StoredJob> jobs = reopened.unfinished();
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].name, "kept-1");
  EXPECT_EQ(jobs[1].name, "kept-2");
}

TEST(JobStoreTest, AJobsCurrentDispatchComesBackWithIt) {
  testing::TempDir dir;
  {
    JobStore store(dir.path());
    const std::int64_t split = store.add("split", "yaml: 1", 1000, "alice");
    const std::int64_t single = store.add("single", "yaml: 2", 2000, "alice");
    store.add("never-placed", "yaml: 3", 3000, "alice");
    const std::int64_t done = store.add("done", "yaml: 4", 4000, "alice");
    store.record_dispatch(split, StoredDispatch{7, false, {"east", "west"}, "", 0});
    // The commit replaces the prepare's record, with the rendezvous.
    store.record_dispatch(split, StoredDispatch{7, true, {"east", "west"}, "10.0.0.5", 29500});
    store.record_dispatch(single, StoredDispatch{8, true, {"north", "south"}, "", 0});
    // Placed again: one current dispatch per job, fewer parts this time.
    store.record_dispatch(single, StoredDispatch{9, false, {"west"}, "", 0});
    store.record_dispatch(done, StoredDispatch{10, true, {"east"}, "", 0});
    store.finish(done, "Completed", 5000);
  }
  JobStore reopened(dir.path());
  const std::vector<StoredJob> jobs = reopened.unfinished();
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].dispatch.id, 7u);
  EXPECT_TRUE(jobs[0].dispatch.committed);
  EXPECT_EQ(jobs[0].dispatch.clusters, (std::vector<std::string>{"east", "west"}));
  EXPECT_EQ(jobs[0].dispatch.rendezvous_host, "10.0.0.5");
  EXPECT_EQ(jobs[0].dispatch.rendezvous_port, 29500);
  EXPECT_EQ(jobs[1].dispatch.id, 9u);
  EXPECT_FALSE(jobs[1].dispatch.committed);
  EXPECT_EQ(jobs[1].dispatch.clusters, std::vector<std::string>{"west"});
  EXPECT_EQ(jobs[2].name, "never-placed");
  EXPECT_EQ(jobs[2].dispatch.id, 0u);
  EXPECT_TRUE(jobs[2].dispatch.clusters.empty());
}

TEST(JobStoreTest, CordonedClustersStayCordonedUntilUncordoned) {
  testing::TempDir dir;
  {
    JobStore store(dir.path());
    store.set_cordoned("west", true);
    store.set_cordoned("east", true);
    store.set_cordoned("east", true);  // twice: still one
    store.set_cordoned("north", true);
    store.set_cordoned("north", false);
    store.set_cordoned("never", false);
  }
  JobStore reopened(dir.path());
  EXPECT_EQ(reopened.cordoned_clusters(), (std::vector<std::string>{"east", "west"}));
}

TEST(JobStoreTest, EveryOpeningStartsANewGeneration) {
  testing::TempDir dir;
  EXPECT_EQ(JobStore(dir.path()).start_generation(), 1u);
  EXPECT_EQ(JobStore(dir.path()).start_generation(), 2u);
  JobStore store(dir.path());
  EXPECT_EQ(store.start_generation(), 3u);
}

TEST(JobStoreTest, CreatesAMissingStateDirectory) {
  testing::TempDir dir;
  const auto nested = dir.path() / "a" / "b";
  JobStore store(nested);
  EXPECT_TRUE(std::filesystem::exists(nested / "gantry.db"));
  EXPECT_TRUE(store.unfinished().empty());
}

TEST(JobStoreTest, UnusableStateDirectoryIsAnErrorNamingThePath) {
  testing::TempDir dir;
  const auto file = dir.path() / "not-a-dir";
  { std::ofstream(file) << "x"; }
  try {
    JobStore store(file / "state");
    FAIL() << "opened a store under a regular file";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not-a-dir"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gantry::actors
