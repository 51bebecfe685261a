// Keys and values against a real etcd: put / get / range / remove round trips.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "etcd/client.hpp"
#include "tests/etcd/etcd_server.hpp"

namespace gantry::etcd {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::IsEmpty;

class EtcdKv : public ::testing::Test {
 protected:
  testing::EtcdServer server_;
  Client client_{{server_.endpoint()}};
};

// Every byte value, a NUL and 0xff among them: the gateway's base64 must carry
// them all, in keys and in values.
std::string all_bytes() {
  std::string bytes;
  for (int byte = 0; byte < 256; ++byte) bytes.push_back(static_cast<char>(byte));
  return bytes;
}

TEST_F(EtcdKv, PutThenGetReturnsTheValueAndItsRevisions) {
  const std::int64_t first = client_.put("jobs/a", "one");
  const std::int64_t second = client_.put("jobs/a", "two");
  EXPECT_GT(second, first);

  const RangeResult got = client_.get("jobs/a");
  ASSERT_EQ(got.kvs.size(), 1u);
  const KeyValue& kv = got.kvs[0];
  EXPECT_EQ(kv.key, "jobs/a");
  EXPECT_EQ(kv.value, "two");
  EXPECT_EQ(kv.create_revision, first);
  EXPECT_EQ(kv.mod_revision, second);
  EXPECT_EQ(kv.version, 2);
  EXPECT_EQ(kv.lease, 0);
  EXPECT_EQ(got.revision, second);
}

TEST_F(EtcdKv, BinaryKeysAndValuesRoundTrip) {
  const std::string key = "bin/" + all_bytes();
  client_.put(key, all_bytes());
  client_.put("bin/empty", "");

  const RangeResult got = client_.get(key);
  ASSERT_EQ(got.kvs.size(), 1u);
  EXPECT_EQ(got.kvs[0].key, key);
  EXPECT_EQ(got.kvs[0].value, all_bytes());
  const RangeResult empty = client_.get("bin/empty");
  ASSERT_EQ(empty.kvs.size(), 1u);
  EXPECT_EQ(empty.kvs[0].value, "");
}

TEST_F(EtcdKv, AMissingKeyHasNoKvsButARevision) {
  const std::int64_t revision = client_.put("other", "x");
  const RangeResult got = client_.get("missing");
  EXPECT_THAT(got.kvs, IsEmpty());
  EXPECT_EQ(got.revision, revision);
}

TEST_F(EtcdKv, RangeReturnsExactlyThePrefixSortedByKey) {
  client_.put("app/b", "2");
  client_.put("app/a", "1");
  client_.put("app0", "outside");  // "app0" is the prefix's range_end: excluded
  client_.put("ap", "outside");
  client_.put(std::string("app/\xff", 5), "3");

  EXPECT_THAT(client_.range("app/").kvs,
              ElementsAre(Field(&KeyValue::key, "app/a"), Field(&KeyValue::key, "app/b"),
                          Field(&KeyValue::key, std::string("app/\xff", 5))));
  EXPECT_EQ(client_.range("").kvs.size(), 5u);  // the empty prefix: every key
}

TEST_F(EtcdKv, RemoveAndRemovePrefixCountWhatTheyDeleted) {
  client_.put("a/1", "x");
  client_.put("a/2", "x");
  client_.put("b", "x");

  EXPECT_EQ(client_.remove("b"), 1);
  EXPECT_EQ(client_.remove("b"), 0);
  EXPECT_EQ(client_.remove_prefix("a/"), 2);
  EXPECT_THAT(client_.range("").kvs, IsEmpty());
}

}  // namespace
}  // namespace gantry::etcd
