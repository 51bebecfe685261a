// The etcd store's own behaviour on a real etcd: one writer at a time
// (claim, wait, take-over, fencing), bounded transactions, and refusing what
// it cannot read.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "actors/etcd_job_history.hpp"
#include "store_backends.hpp"

namespace gantry::actors {
namespace {

using testing::EtcdBackend;

// Bounds a wait on something the test set in motion; not a timing check.
constexpr auto kBound = std::chrono::seconds(60);

TEST(EtcdStoreAddress, ParsesEndpointsAndPrefix) {
  const EtcdStoreAddress one = parse_etcd_store_address("etcd://10.0.0.1:2379");
  EXPECT_EQ(one.endpoints, (std::vector<std::string>{"http://10.0.0.1:2379"}));
  EXPECT_EQ(one.prefix, "/gantry/");
  const EtcdStoreAddress three = parse_etcd_store_address("etcd://a:1,b:2,c:3/teams/ml/");
  EXPECT_EQ(three.endpoints, (std::vector<std::string>{"http://a:1", "http://b:2", "http://c:3"}));
  EXPECT_EQ(three.prefix, "/teams/ml/");
}

TEST(EtcdStoreAddress, EndpointsAreHttpsWithTlsFilesAndTheAccessTravelsWithThem) {
  etcd::Access access;
  access.tls.ca_file = "/etc/gantry/etcd-ca.pem";
  access.auth = etcd::Credentials{"gantry-hub", "secret"};
  const EtcdStoreAddress address = parse_etcd_store_address("etcd://a:1,b:2/ml", access);
  EXPECT_EQ(address.endpoints, (std::vector<std::string>{"https://a:1", "https://b:2"}));
  EXPECT_EQ(address.access.tls.ca_file, "/etc/gantry/etcd-ca.pem");
  EXPECT_EQ(address.access.auth.user, "gantry-hub");
  access.tls = {};
  EXPECT_EQ(parse_etcd_store_address("etcd://a:1", access).endpoints,
            (std::vector<std::string>{"http://a:1"}));
}

TEST(EtcdStoreAddress, RefusesWhatIsNotOne) {
  for (const char* text :
       {"http://a:1", "etcd://", "etcd://a", "etcd://a:x", "etcd://a:1,", "etcd://a:1//"}) {
    EXPECT_THROW(parse_etcd_store_address(text), std::runtime_error) << text;
  }
}

TEST(EtcdJobStoreTest, ASecondHubWaitsUntilTheFirstLetsGoThenFindsItsJobs) {
  EtcdBackend backend;
  auto first = backend.open_as("hub-a");
  first->add("job", "yaml: 1", 1000, "alice");
  std::promise<std::string> waiting;
  WriterClaimOptions claim;
  claim.on_wait = [&](const std::string& holder) { waiting.set_value(holder); };
  auto second = std::async(std::launch::async, [&] { return backend.open_as("hub-b", claim); });
  auto told = waiting.get_future();
  ASSERT_EQ(told.wait_for(kBound), std::future_status::ready);
  EXPECT_EQ(told.get(), "hub-a");
  first.reset();  // lets go: its lease is revoked
  ASSERT_EQ(second.wait_for(kBound), std::future_status::ready);
  const auto store = second.get();
  ASSERT_EQ(store->unfinished().size(), 1u);
  EXPECT_EQ(store->unfinished()[0].name, "job");
}

// Issue 31: a standby keeps a copy of the store warm while it waits, so
// what the holder wrote meanwhile (added, forgotten, cordoned, applied) is
// there when it takes over, read from that copy rather than from etcd.
TEST(EtcdJobStoreTest, AStandbyTakesOverWithTheCopyItKeptWarmWhileItWaited) {
  EtcdBackend backend;
  auto first = backend.open_as("hub-a");
  first->add("kept", "yaml: 1", 1000, "alice");
  const std::int64_t gone = first->add("gone", "yaml: 2", 1001, "alice");
  std::promise<void> waiting;
  std::once_flag told;
  WriterClaimOptions claim;
  claim.on_wait = [&](const std::string&) { std::call_once(told, [&] { waiting.set_value(); }); };
  auto second = std::async(std::launch::async, [&] { return backend.open_as("hub-b", claim); });
  ASSERT_EQ(waiting.get_future().wait_for(kBound), std::future_status::ready);
  // Written after the standby's copy was read: they reach it on its watch.
  first->add("later", "yaml: 3", 1002, "bob");
  first->forget(gone);
  first->set_cordoned("east", true);
  first->save_queue("research", "kind: Queue");
  first.reset();  // lets go: its lease is revoked
  ASSERT_EQ(second.wait_for(kBound), std::future_status::ready);
  const auto store = second.get();
  EXPECT_TRUE(store->loaded_warm());
  std::vector<std::string> names;
  for (const StoredJob& job : store->unfinished()) names.push_back(job.name);
  EXPECT_EQ(names, (std::vector<std::string>{"kept", "later"}));
  EXPECT_EQ(store->cordoned_clusters(), (std::vector<std::string>{"east"}));
  EXPECT_EQ(store->queues(), (std::vector<std::string>{"kind: Queue"}));
  // And it writes as any holder does: a hub after it finds its job.
  store->add("after", "yaml: 4", 1003, "bob");
  const auto names_after = [&] {
    std::vector<std::string> found;
    for (const StoredJob& job : store->unfinished()) found.push_back(job.name);
    return found;
  }();
  EXPECT_EQ(names_after, (std::vector<std::string>{"kept", "later", "after"}));
}

// A hub that finds the store free reads it from etcd: no copy was kept.
TEST(EtcdJobStoreTest, AHubThatDidNotWaitReadsTheStore) {
  EtcdBackend backend;
  backend.open_as("hub-a")->add("job", "yaml: 1", 1000, "alice");
  const auto store = backend.open_as("hub-a");
  EXPECT_FALSE(store->loaded_warm());
  ASSERT_EQ(store->unfinished().size(), 1u);
}

// A hub restarted after a crash finds its own claim, still on a lease that
// would take its TTL to lapse, and takes it back at once.
TEST(EtcdJobStoreTest, AHubTakesBackItsOwnClaimLeftByACrash) {
  EtcdBackend backend;
  etcd::Client client = backend.client();
  const std::int64_t lease = client.grant_lease(3600);
  client.put(backend.address().prefix + "writer", "hub-a", lease);
  WriterClaimOptions claim;
  bool waited = false;
  claim.on_wait = [&](const std::string&) { waited = true; };
  const auto store = backend.open_as("hub-a", claim);
  EXPECT_FALSE(waited);
  EXPECT_NE(store->claim().lease(), lease);
}

// Fencing: once its claim is gone, a hub's write is refused by etcd itself,
// whatever the hub believes.
TEST(EtcdJobStoreTest, AWriteAfterTheClaimIsGoneIsRefusedAndLeavesNothing) {
  EtcdBackend backend;
  auto store = backend.open_as("hub-a");
  etcd::Client client = backend.client();
  client.remove(backend.address().prefix + "writer");
  try {
    store->add("late", "yaml: 1", 1000, "alice");
    FAIL() << "the write was not refused";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("writer claim"), std::string::npos) << error.what();
  }
  EXPECT_TRUE(client.range(backend.address().prefix + "jobs/").kvs.empty());
  EXPECT_TRUE(store->open_history()->ended({}).empty());
}

TEST(EtcdJobStoreTest, AHubIsToldWhenItsLeaseEnds) {
  EtcdBackend backend;
  std::promise<std::string> lost;
  WriterClaimOptions claim;
  claim.ttl_seconds = 3;
  claim.on_lost = [&](const std::string& why) { lost.set_value(why); };
  auto store = backend.open_as("hub-a", claim);
  backend.client().revoke(store->claim().lease());
  auto told = lost.get_future();
  ASSERT_EQ(told.wait_for(kBound), std::future_status::ready);
  EXPECT_NE(told.get().find("lapsed"), std::string::npos);
  EXPECT_TRUE(store->claim().lost());
}

// Cut off from etcd (it answers nothing), a hub is told before its lease
// could lapse at etcd: it must stop scheduling while no other hub can
// have claimed the store yet.
TEST(EtcdJobStoreTest, AHubCutOffFromEtcdIsToldItsClaimIsLost) {
  EtcdBackend backend;
  std::promise<std::string> lost;
  WriterClaimOptions claim;
  claim.ttl_seconds = 5;
  claim.on_lost = [&](const std::string& why) { lost.set_value(why); };
  auto store = backend.open_as("hub-a", claim);
  backend.server().pause();
  auto told = lost.get_future();
  const bool in_time = told.wait_for(kBound) == std::future_status::ready;
  backend.server().resume();
  ASSERT_TRUE(in_time);
  EXPECT_NE(told.get().find("could not be renewed"), std::string::npos);
}

namespace {

std::vector<std::pair<std::string, std::string>> names_and_phases(
    const std::vector<protocol::JobInfo>& jobs) {
  std::vector<std::pair<std::string, std::string>> listed;
  for (const protocol::JobInfo& job : jobs) listed.emplace_back(job.name, job.phase);
  return listed;
}

}  // namespace

// get jobs lists the ended jobs from memory once they were read: what later
// transactions committed (an end, a forget, on any reader) is listed, what
// was rolled back is not, and etcd is not asked (it is stopped meanwhile).
TEST(EtcdJobStoreTest, EndedJobsOnceReadAreListedFromMemoryAsCommittedTransactionsLeftThem) {
  EtcdBackend backend;
  auto store = backend.open();
  const std::int64_t a = store->add("a", "yaml: 1", 1000, "alice");
  const std::int64_t b = store->add("b", "yaml: 2", 1001, "alice");
  const std::int64_t c = store->add("c", "yaml: 3", 1002, "alice");
  store->finish(a, "Completed", 2000);
  const auto web_feed = store->open_history();  // another thread's reader
  EXPECT_EQ(names_and_phases(web_feed->ended({})),
            (std::vector<std::pair<std::string, std::string>>{{"a", "Completed"}}));

  store->finish(b, "Failed", 2001);
  store->forget_ended("a");
  store->begin();
  store->finish(c, "Completed", 2002);
  store->rollback();
  const auto history = store->open_history();
  backend.server().pause();
  auto listed = std::async(std::launch::async, [&] { return history->ended({}); });
  const bool answered = listed.wait_for(kBound) == std::future_status::ready;
  backend.server().resume();
  ASSERT_TRUE(answered) << "the listing waited for etcd";
  EXPECT_EQ(names_and_phases(listed.get()),
            (std::vector<std::pair<std::string, std::string>>{{"b", "Failed"}}));
  EXPECT_EQ(names_and_phases(web_feed->ended({"b"})),
            (std::vector<std::pair<std::string, std::string>>{}));

  const std::optional<protocol::DescribeReply> described = history->describe("b");
  ASSERT_TRUE(described);
  EXPECT_EQ(described->job.phase, "Failed");
  EXPECT_FALSE(history->describe("a"));
  EXPECT_FALSE(history->describe("c"));
  // A hub opened afterwards reads the same from etcd.
  store.reset();
  EXPECT_EQ(names_and_phases(backend.open()->open_history()->ended({})),
            (std::vector<std::pair<std::string, std::string>>{{"b", "Failed"}}));
}

// etcd refuses a transaction of more than --max-txn-ops (128) operations:
// the store says when one is full, and each commits.
TEST(EtcdJobStoreTest, ATransactionIsFullBeforeEtcdsLimitsAndEachCommits) {
  EtcdBackend backend;
  auto store = backend.open();
  int added = 0;
  for (int batch = 0; batch < 3; ++batch) {
    store->begin();
    while (!store->transaction_full())
      store->add("job-" + std::to_string(added++), "yaml: 1", 1000, "alice");
    store->commit();
  }
  EXPECT_GT(added, 3 * 90);
  store.reset();
  EXPECT_EQ(backend.open()->unfinished().size(), static_cast<std::size_t>(added));
}

// A pass's dispatch records are one write of the store actor, however many.
TEST(EtcdJobStoreTest, AWriteOfMoreKeysThanOneTransactionTakesIsSentInSeveral) {
  EtcdBackend backend;
  auto store = backend.open();
  std::vector<std::int64_t> rows;
  for (int i = 0; i < 300; ++i)
    rows.push_back(store->add("job-" + std::to_string(i), "yaml: 1", 1000, "alice"));
  store->begin();
  for (const std::int64_t row : rows)
    store->record_dispatch(row, StoredDispatch{9, true, {"a"}, "", 0});
  store->commit();
  store.reset();
  const std::vector<StoredJob> jobs = backend.open()->unfinished();
  ASSERT_EQ(jobs.size(), rows.size());
  for (const StoredJob& job : jobs) EXPECT_EQ(job.dispatch.id, 9u) << job.name;
}

TEST(EtcdJobStoreTest, ABigJobFillsATransactionByItsBytes) {
  EtcdBackend backend;
  auto store = backend.open();
  store->begin();
  store->add("big", std::string(EtcdJobStore::kMaxTransactionBytes, 'x'), 1000, "alice");
  EXPECT_TRUE(store->transaction_full());
  store->rollback();
}

TEST(EtcdJobStoreTest, ADamagedRecordIsRefusedNotSkipped) {
  EtcdBackend backend;
  backend.open()->add("job", "yaml: 1", 1000, "alice");
  backend.client().put(backend.address().prefix + "jobs/" + EtcdKeys::row_text(7), "\xc1garbage");
  try {
    backend.open();
    FAIL() << "a damaged store was opened";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("jobs/0000000000000007"), std::string::npos)
        << error.what();
  }
}

TEST(EtcdJobStoreTest, AStoreFromANewerHubIsRefused) {
  EtcdBackend backend;
  backend.open();
  backend.client().put(backend.address().prefix + "meta/schema", "99");
  EXPECT_THROW(backend.open(), std::runtime_error);
}

// gantry-hub --store URL --check: what a hub would find, read while another
// hub holds the store, and nothing written.
TEST(EtcdJobStoreTest, InspectingReadsEveryRecordWithoutClaimingOrWriting) {
  EtcdBackend backend;
  std::string holder;
  EXPECT_EQ(EtcdJobStore::inspect(backend.address(), holder).schema_version, 0);
  EXPECT_EQ(holder, "");
  auto store = backend.open_as("hub-a");
  store->finish(store->add("done", "yaml: 1", 1000, "alice"), "Completed", 2000);
  store->add("pending", "yaml: 2", 3000, "alice");
  store->save_queue("q", "name: q");
  const std::int64_t revision = backend.client().get("/").revision;
  const StateSummary summary = EtcdJobStore::inspect(backend.address(), holder);
  EXPECT_EQ(holder, "hub-a");
  EXPECT_EQ(summary.schema_version, kEtcdSchemaVersion);
  EXPECT_EQ(summary.jobs, 2);
  EXPECT_EQ(summary.unfinished, 1);
  EXPECT_EQ(summary.queues, 1);
  EXPECT_EQ(backend.client().get("/").revision, revision);  // nothing written
  backend.client().put(backend.address().prefix + "ended/" + EtcdKeys::row_text(9), "\xc1");
  EXPECT_THROW(EtcdJobStore::inspect(backend.address(), holder), std::runtime_error);
}

// The hub's --store-cacert, --store-cert, --store-key, --store-user and
// --store-password-file reach every client of the store: its own, the writer
// claim's renewing one (the claim is taken and let go through it), and
// --check's. A token etcd forgot is replaced on the way.
TEST(EtcdJobStoreTest, OverTlsWithAPasswordAStoreClaimsWritesAndReadsBack) {
  EtcdBackend backend(EtcdBackend::Security::kSecured);
  ASSERT_EQ(backend.address().endpoints.at(0).rfind("https://", 0), 0u);
  auto first = backend.open_as("hub-a");
  EXPECT_TRUE(first->created());
  first->save_queue("q", "name: q");
  first->finish(first->add("done", "yaml: 1", 1000, "alice"), "Completed", 2000);
  backend.server().drop_tokens();
  first->add("pending", "yaml: 2", 3000, "alice");

  std::string holder;
  EXPECT_EQ(EtcdJobStore::inspect(backend.address(), holder).jobs, 2);
  EXPECT_EQ(holder, "hub-a");
  EtcdStoreAddress without_password = backend.address();
  without_password.access.auth = {};
  EXPECT_THROW(EtcdJobStore::inspect(without_password, holder), std::runtime_error);
  EtcdStoreAddress without_certificate = backend.address();
  without_certificate.access.tls.cert_file.clear();
  without_certificate.access.tls.key_file.clear();
  EXPECT_THROW(EtcdJobStore::inspect(without_certificate, holder), std::runtime_error);

  first.reset();  // lets go through the claim's client: the next hub need not wait
  WriterClaimOptions claim;
  bool waited = false;
  claim.on_wait = [&](const std::string&) { waited = true; };
  const auto second = backend.open_as("hub-b", claim);
  EXPECT_FALSE(waited);
  EXPECT_FALSE(second->created());
  ASSERT_EQ(second->unfinished().size(), 1u);
  EXPECT_EQ(second->unfinished()[0].name, "pending");
  EXPECT_EQ(second->queues(), (std::vector<std::string>{"name: q"}));
  EXPECT_EQ(second->ended_submitters("done"), (std::vector<std::string>{"alice"}));
}

TEST(EtcdJobStoreTest, StoresUnderOtherPrefixesAreSeparate) {
  EtcdBackend backend;
  backend.open()->add("mine", "yaml: 1", 1000, "alice");
  EtcdStoreAddress other = backend.address();
  other.prefix = "/other/";
  WriterClaimOptions claim;
  claim.identity = "hub-b";
  EtcdJobStore elsewhere(other, claim);
  EXPECT_TRUE(elsewhere.created());
  EXPECT_TRUE(elsewhere.unfinished().empty());
}

}  // namespace
}  // namespace gantry::actors
