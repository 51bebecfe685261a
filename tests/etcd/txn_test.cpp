// Transactions against a real etcd, above all the fencing issue 31's leader
// writes rely on: a write guarded by a stale revision of the leader key
// fails and writes nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "etcd/client.hpp"
#include "tests/etcd/etcd_server.hpp"

namespace gantry::etcd {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using Result = Compare::Result;

class EtcdTxn : public ::testing::Test {
 protected:
  // The value of `key`, or "<absent>".
  std::string value_of(const std::string& key) {
    const auto got = client_.get(key);
    return got.kvs.empty() ? "<absent>" : got.kvs[0].value;
  }

  testing::EtcdServer server_;
  Client client_{{server_.endpoint()}};
};

TEST_F(EtcdTxn, OnlyTheLeaderWhoseRevisionStillHoldsWrites) {
  const std::int64_t old_leader = client_.put("leader", "a");
  // "b" takes over, guarded by the revision it saw.
  const TxnResult takeover = client_.txn(
      {Compare::mod_revision("leader", Result::kEqual, old_leader)}, {Op::put("leader", "b")});
  ASSERT_TRUE(takeover.succeeded);
  const std::int64_t new_leader = client_.get("leader").kvs.at(0).mod_revision;
  EXPECT_EQ(new_leader, takeover.revision);

  // "a" still believes it leads: its fenced write fails and writes nothing.
  const TxnResult stale = client_.txn({Compare::mod_revision("leader", Result::kEqual, old_leader)},
                                      {Op::put("state", "from a")}, {Op::get("leader")});
  EXPECT_FALSE(stale.succeeded);
  EXPECT_EQ(stale.revision, new_leader);  // nothing was written
  ASSERT_EQ(stale.results.size(), 1u);
  ASSERT_EQ(stale.results[0].kvs.size(), 1u);
  EXPECT_EQ(stale.results[0].kvs[0].value, "b");  // the failure branch tells who leads
  EXPECT_EQ(value_of("state"), "<absent>");

  const TxnResult current = client_.txn(
      {Compare::mod_revision("leader", Result::kEqual, new_leader)}, {Op::put("state", "from b")});
  EXPECT_TRUE(current.succeeded);
  EXPECT_GT(current.revision, new_leader);
  EXPECT_EQ(value_of("state"), "from b");
}

TEST_F(EtcdTxn, CreateRevisionZeroMeansOnlyIfAbsent) {
  const auto create = [&](const std::string& who) {
    return client_.txn({Compare::create_revision("leader", Result::kEqual, 0)},
                       {Op::put("leader", who)}, {Op::get("leader")});
  };
  EXPECT_TRUE(create("a").succeeded);
  const TxnResult second = create("b");
  EXPECT_FALSE(second.succeeded);
  ASSERT_EQ(second.results.size(), 1u);
  ASSERT_EQ(second.results[0].kvs.size(), 1u);
  EXPECT_EQ(second.results[0].kvs[0].value, "a");
  EXPECT_EQ(value_of("leader"), "a");
}

TEST_F(EtcdTxn, EveryTargetAndComparisonIsSentAsMeant) {
  client_.put("k", "v1");
  client_.put("k", "v2");  // version 2
  const auto holds = [&](const Compare& compare) { return client_.txn({compare}, {}).succeeded; };
  EXPECT_TRUE(holds(Compare::version("k", Result::kEqual, 2)));
  EXPECT_FALSE(holds(Compare::version("k", Result::kNotEqual, 2)));
  EXPECT_TRUE(holds(Compare::version("k", Result::kGreater, 1)));
  EXPECT_FALSE(holds(Compare::version("k", Result::kLess, 2)));
  EXPECT_TRUE(holds(Compare::value("k", Result::kEqual, "v2")));
  EXPECT_TRUE(holds(Compare::value("k", Result::kNotEqual, "v1")));
  const KeyValue kv = client_.get("k").kvs.at(0);
  EXPECT_TRUE(holds(Compare::create_revision("k", Result::kLess, kv.mod_revision)));
  EXPECT_FALSE(holds(Compare::mod_revision("k", Result::kGreater, kv.mod_revision)));
}

TEST_F(EtcdTxn, SeveralOperationsApplyTogetherAndAnswerInOrder) {
  client_.put("old/1", "x");
  client_.put("old/2", "x");
  const TxnResult result = client_.txn(
      {}, {Op::remove_prefix("old/"), Op::put("new", "y"), Op::range("old/"), Op::get("new")});
  ASSERT_TRUE(result.succeeded);  // no compares: success runs
  ASSERT_EQ(result.results.size(), 4u);
  EXPECT_EQ(result.results[0].deleted, 2);
  EXPECT_THAT(result.results[2].kvs, IsEmpty());
  ASSERT_EQ(result.results[3].kvs.size(), 1u);
  EXPECT_EQ(result.results[3].kvs[0].value, "y");
  EXPECT_THAT(client_.range("").kvs, ElementsAre(Field(&KeyValue::key, "new")));
}

// etcd refuses a transaction that writes one key twice: its gRPC error comes
// back as a GrpcError naming the endpoint, and nothing is written.
TEST_F(EtcdTxn, ATransactionEtcdRefusesIsAGrpcError) {
  try {
    client_.txn({}, {Op::put("k", "1"), Op::remove("k")});
    FAIL() << "etcd accepted a duplicate key";
  } catch (const GrpcError& error) {
    EXPECT_EQ(error.code(), 3);  // INVALID_ARGUMENT
    EXPECT_THAT(error.what(),
                AllOf(HasSubstr("etcd endpoint " + server_.endpoint() + ": POST /v3/kv/txn: "),
                      HasSubstr("duplicate key")));
  }
  EXPECT_EQ(value_of("k"), "<absent>");
}

}  // namespace
}  // namespace gantry::etcd
