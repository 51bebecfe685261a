// What the hub relies on from a job store, run against both backends: the
// SQLite store in a state directory and the etcd store on a real etcd.
#include <gtest/gtest.h>

#include "protocol/wire_codec.hpp"  // msgpack, and the encoding of wire structs
#include <set>

#include "actors/job_history.hpp"
#include "store_backends.hpp"

namespace gantry::actors {
namespace {

using testing::EtcdBackend;
using testing::SqliteBackend;
using testing::StoreBackend;

template <class Backend>
class StoreContract : public ::testing::Test {
 protected:
  Backend backend;
};

using Backends = ::testing::Types<SqliteBackend, EtcdBackend>;
class BackendNames {
 public:
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, SqliteBackend> ? "Sqlite" : "Etcd";
  }
};
TYPED_TEST_SUITE(StoreContract, Backends, BackendNames);

std::vector<std::string> names_of(const std::vector<StoredJob>& jobs) {
  std::vector<std::string> names;
  for (const StoredJob& job : jobs) names.push_back(job.name);
  return names;
}

TYPED_TEST(StoreContract, UnfinishedJobsComeBackInSubmissionOrderWithWhatWasStored) {
  {
    auto store = this->backend.open();
    EXPECT_TRUE(store->created());
    const std::int64_t first = store->add("first", "yaml: 1", 1000, "alice", "spec-1");
    const std::int64_t done = store->add("done", "yaml: 2", 2000, "alice");
    const std::int64_t refused = store->add("refused", "yaml: 3", 3000, "alice");
    store->add("last", "yaml: 4", 4000, "bob");
    EXPECT_GT(first, 0);
    store->finish(done, "Completed", 5000);
    store->forget(refused);
  }
  auto reopened = this->backend.open();
  EXPECT_FALSE(reopened->created());
  const std::vector<StoredJob> jobs = reopened->unfinished();
  ASSERT_EQ(names_of(jobs), (std::vector<std::string>{"first", "last"}));
  EXPECT_EQ(jobs[0].yaml, "yaml: 1");
  EXPECT_EQ(jobs[0].submitted_ms, 1000);
  EXPECT_EQ(jobs[0].submitter, "alice");
  EXPECT_EQ(jobs[0].spec, "spec-1");
  EXPECT_EQ(jobs[1].submitter, "bob");
  EXPECT_LT(jobs[0].row, jobs[1].row);
  // Rows are never given twice, across openings too.
  EXPECT_GT(reopened->add("after", "yaml: 5", 6000, "bob"), jobs[1].row);
}

TYPED_TEST(StoreContract, ABatchIsKeptWhenCommittedAndGoneWhenRolledBack) {
  {
    auto store = this->backend.open();
    store->begin();
    store->add("kept", "yaml: 1", 1000, "alice");
    store->commit();
    store->begin();
    const std::int64_t row = store->add("undone", "yaml: 2", 2000, "alice");
    store->record_dispatch(row, StoredDispatch{7, false, {"a"}, "", 0});
    store->rollback();
    // The rolled-back job is not in the store's indexes either.
    store->finish(row, "Completed", 3000);
    EXPECT_TRUE(store->ended_submitters("undone").empty());
  }
  EXPECT_EQ(names_of(this->backend.open()->unfinished()), (std::vector<std::string>{"kept"}));
}

TYPED_TEST(StoreContract, AJobsCurrentDispatchComesBackWithIt) {
  {
    auto store = this->backend.open();
    const std::int64_t split = store->add("split", "yaml: 1", 1000, "alice");
    const std::int64_t single = store->add("single", "yaml: 2", 2000, "alice");
    store->add("never-placed", "yaml: 3", 3000, "alice");
    const std::int64_t done = store->add("done", "yaml: 4", 4000, "alice");
    store->record_dispatch(split, StoredDispatch{7, false, {"east", "west"}, "", 0});
    // The commit replaces the prepare's record, with the rendezvous.
    store->record_dispatch(split, StoredDispatch{7, true, {"east", "west"}, "10.0.0.5", 29500});
    store->record_dispatch(single, StoredDispatch{8, true, {"north", "south"}, "", 0});
    // Placed again: one current dispatch per job, fewer parts this time.
    store->record_dispatch(single, StoredDispatch{9, false, {"west"}, "", 0});
    store->record_dispatch(done, StoredDispatch{10, true, {"east"}, "", 0});
    store->finish(done, "Completed", 5000);
  }
  const std::vector<StoredJob> jobs = this->backend.open()->unfinished();
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

TYPED_TEST(StoreContract, ARenamedJobComesBackUnderItsNewName) {
  {
    auto store = this->backend.open();
    store->begin();
    const std::int64_t row = store->add("train-", "yaml: 1", 1000, "alice");
    store->rename(row, "train-x7k2p");
    store->commit();
  }
  EXPECT_EQ(names_of(this->backend.open()->unfinished()),
            (std::vector<std::string>{"train-x7k2p"}));
}

TYPED_TEST(StoreContract, EndedJobsAreListedDescribedAndForgotten) {
  auto store = this->backend.open();
  const std::int64_t a = store->add("a", "yaml: 1", 1000, "alice");
  const std::int64_t b = store->add("b", "yaml: 2", 2000, "bob");
  protocol::DescribeReply record;
  record.job.name = "b";
  record.job.queue = "research";
  record.events = {"submitted", "ended"};
  msgpack::sbuffer packed;
  msgpack::pack(packed, record);
  store->finish(a, "Failed", 3000);
  store->finish(FinishedJob{b, "Completed", 4000, "research", 2500, 8000, 0,
                            std::string(packed.data(), packed.size())});
  const auto history = store->open_history();
  EXPECT_TRUE(history->holds_ended("a"));
  EXPECT_FALSE(history->holds_ended("c"));
  const auto ended = history->ended({"a"});
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0].name, "b");
  EXPECT_EQ(ended[0].phase, "Completed");
  EXPECT_EQ(ended[0].finished_ms, 4000);
  const auto recent = history->recent_ended({}, 1);
  ASSERT_EQ(recent.size(), 1u);
  EXPECT_EQ(recent[0].name, "b");
  const auto described = history->describe("b");
  ASSERT_TRUE(described);
  EXPECT_EQ(described->events, record.events);
  EXPECT_EQ(described->job.queue, "research");
  const auto from_row = history->describe("a");
  ASSERT_TRUE(from_row);
  EXPECT_EQ(from_row->job.submitter, "alice");
  EXPECT_EQ(from_row->job.phase, "Failed");
  EXPECT_EQ(store->ended_submitters("b"), (std::vector<std::string>{"bob"}));
  store->forget_ended("b");
  EXPECT_TRUE(store->ended_submitters("b").empty());
  EXPECT_FALSE(history->holds_ended("b"));
  EXPECT_FALSE(history->describe("b"));
  EXPECT_TRUE(store->unfinished().empty());
}

TYPED_TEST(StoreContract, EndedJobsExpireByTheirTtlOrKeepFinished) {
  auto store = this->backend.open();
  const std::int64_t ttl = store->add("ttl", "yaml: 1", 1000, "alice");
  const std::int64_t kept = store->add("kept", "yaml: 2", 1000, "alice");
  store->finish(FinishedJob{ttl, "Completed", 2000, "", 0, 0, 2500, ""});
  store->finish(kept, "Completed", 3000);
  const std::int64_t keep = 10'000;
  EXPECT_EQ(store->next_expiry(keep), 2500);
  EXPECT_EQ(store->forget_expired(2499, 2499 - keep, 100), 0);
  EXPECT_EQ(store->forget_expired(2500, 2500 - keep, 100), 1);
  EXPECT_EQ(store->next_expiry(keep), 13'000);
  EXPECT_EQ(store->forget_expired(13'000, 13'000 - keep, 100), 1);
  EXPECT_EQ(store->next_expiry(keep), std::nullopt);
  EXPECT_FALSE(store->open_history()->holds_ended("kept"));
}

TYPED_TEST(StoreContract, QueuesPriorityClassesAndCordonsOutliveTheStore) {
  {
    auto store = this->backend.open();
    store->save_queue("b", "name: b");
    store->save_queue("a", "name: a");
    store->save_queue("b", "name: b2");  // replaced, keeps its place
    store->save_queue("gone", "name: gone");
    store->drop_queue("gone");
    store->save_priority_class("high", "value: 100");
    store->save_priority_class("low", "value: 1");
    store->drop_priority_class("low");
    store->set_cordoned("west", true);
    store->set_cordoned("east", true);
    store->set_cordoned("east", false);
  }
  auto store = this->backend.open();
  EXPECT_EQ(store->queues(), (std::vector<std::string>{"name: b2", "name: a"}));
  EXPECT_EQ(store->priority_classes(), (std::vector<std::string>{"value: 100"}));
  EXPECT_EQ(store->cordoned_clusters(), (std::vector<std::string>{"west"}));
}

TYPED_TEST(StoreContract, EveryOpeningStartsANewGenerationFromTheStatesFirst) {
  const std::uint64_t first = this->backend.open()->start_generation();
  EXPECT_GE(first, 1u);
  EXPECT_LE(first, 1u << 22);
  auto store = this->backend.open();
  EXPECT_EQ(store->start_generation(), first + 1);
  EXPECT_EQ(store->first_generation(), first);
}

TYPED_TEST(StoreContract, SummaryCountsJobsAndQueues) {
  auto store = this->backend.open();
  store->finish(store->add("a", "yaml: 1", 1, "alice"), "Completed", 2);
  store->add("b", "yaml: 2", 3, "alice");
  store->save_queue("q", "name: q");
  const StateSummary summary = store->summary();
  EXPECT_EQ(summary.jobs, 2);
  EXPECT_EQ(summary.unfinished, 1);
  EXPECT_EQ(summary.queues, 1);
  EXPECT_EQ(summary.integrity, "");
}

}  // namespace
}  // namespace gantry::actors
