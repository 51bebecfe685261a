#include "actors/job_store.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "test_support.hpp"

namespace gantry::actors {
namespace {

TEST(JobStoreTest, UnfinishedJobsSurviveReopeningInSubmissionOrder) {
  testing::TempDir dir;
  {
    JobStore store(dir.path());
    const std::int64_t first = store.add("first", "yaml: 1", 1000);
    const std::int64_t done = store.add("done", "yaml: 2", 2000);
    const std::int64_t refused = store.add("refused", "yaml: 3", 3000);
    store.add("last", "yaml: 4", 4000);
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
  EXPECT_EQ(jobs[1].name, "last");
  EXPECT_LT(jobs[0].row, jobs[1].row);
}

TEST(JobStoreTest, ABatchIsKeptWhenCommittedAndGoneWhenRolledBack) {
  testing::TempDir dir;
  {
    JobStore store(dir.path());
    store.begin();
    store.add("kept-1", "yaml: 1", 1000);
    store.add("kept-2", "yaml: 2", 2000);
    store.commit();
    store.begin();
    store.add("undone", "yaml: 3", 3000);
    store.rollback();
    store.rollback();  // nothing open: harmless
  }
  JobStore reopened(dir.path());
  const std::vector<StoredJob> jobs = reopened.unfinished();
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].name, "kept-1");
  EXPECT_EQ(jobs[1].name, "kept-2");
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
