// The gateway's JSON without a server: request bodies, bounded answer parsing,
// decoding, prefix ranges, stream line splitting.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "etcd/key_range.hpp"
#include "etcd/request_json.hpp"
#include "etcd/response_json.hpp"
#include "etcd/stream_lines.hpp"
#include "etcd/transport.hpp"

namespace gantry::etcd {
namespace {

using nlohmann::json;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(EtcdWire, PrefixEndIncrementsTheLastByteBelow0xff) {
  EXPECT_EQ(prefix_end("a/"), "a0");
  EXPECT_EQ(prefix_end(std::string("a\xff\xff", 3)), "b");
  EXPECT_EQ(prefix_end(std::string("\xff", 1)), std::string(1, '\0'));
  EXPECT_EQ(prefix_end(""), std::string(1, '\0'));
}

TEST(EtcdWire, TxnRequestNamesTargetsAndSendsInt64AsStrings) {
  const json body = txn_request({Compare::mod_revision("l", Compare::Result::kEqual, 12),
                                 Compare::value("v", Compare::Result::kNotEqual, "x")},
                                {Op::put("k", "v", 7)}, {Op::remove_prefix("p/")});
  EXPECT_EQ(
      body["compare"][0],
      json({{"key", "bA=="}, {"target", "MOD"}, {"result", "EQUAL"}, {"mod_revision", "12"}}));
  EXPECT_EQ(
      body["compare"][1],
      json({{"key", "dg=="}, {"target", "VALUE"}, {"result", "NOT_EQUAL"}, {"value", "eA=="}}));
  EXPECT_EQ(body["success"][0],
            json({{"request_put", {{"key", "aw=="}, {"value", "dg=="}, {"lease", "7"}}}}));
  EXPECT_EQ(body["failure"][0],
            json({{"request_delete_range", {{"key", "cC8="}, {"range_end", "cDA="}}}}));
}

TEST(EtcdWire, AnswersOverTheSizeOrDepthLimitAreRefusedNamingTheLimit) {
  EXPECT_THAT([] { parse_answer(R"({"header":{}})", 5); },
              ThrowsMessage<std::runtime_error>(
                  HasSubstr("answer of 13 bytes is over the limit of 5 bytes")));
  const std::string deep = std::string(20, '[') + std::string(20, ']');
  EXPECT_THAT([&] { parse_answer(deep); },
              ThrowsMessage<std::runtime_error>(
                  HasSubstr("deeper than the limit of " + std::to_string(kMaxAnswerDepth))));
}

TEST(EtcdWire, GarbageIsRefusedWithAnExcerpt) {
  EXPECT_THAT([] { parse_answer("<html>bad gateway</html>"); },
              ThrowsMessage<std::runtime_error>(
                  HasSubstr("not a JSON object: \"<html>bad gateway</html>\"")));
  EXPECT_THAT([] { parse_answer("[1,2]"); },
              ThrowsMessage<std::runtime_error>(HasSubstr("not a JSON object")));
  EXPECT_THAT([] { parse_answer(""); },
              ThrowsMessage<std::runtime_error>(HasSubstr("not a JSON object")));
}

TEST(EtcdWire, AuthenticationSendsNameAndPasswordAndTakesOnlyAPrintableToken) {
  EXPECT_EQ(authenticate_request("gantry", "pass word"),
            json({{"name", "gantry"}, {"password", "pass word"}}));
  EXPECT_EQ(decode_token(json({{"header", json::object()}, {"token", "sXkIYlpZlGbsDiHQ.14"}})),
            "sXkIYlpZlGbsDiHQ.14");
  EXPECT_THAT([] { decode_token(json::object()); },
              ThrowsMessage<std::runtime_error>(HasSubstr("without a token")));
  EXPECT_THAT(
      [] {
        decode_token(json({{"token", "a\r\nX-Injected: 1"}}));
      },
      ThrowsMessage<std::runtime_error>(HasSubstr("not printable ASCII")));
}

TEST(EtcdWire, OnlyATokenEtcdNoLongerKnowsIsSentAgain) {
  EXPECT_TRUE(Transport::refuses_token("etcdserver: invalid auth token"));
  EXPECT_TRUE(Transport::refuses_token(
      "rpc error: code = Unauthenticated desc = etcdserver: invalid auth token"));
  EXPECT_TRUE(Transport::refuses_token("etcdserver: revision of auth store is old"));
  EXPECT_FALSE(Transport::refuses_token("etcdserver: permission denied"));
  EXPECT_FALSE(Transport::refuses_token("etcdserver: user name is empty"));
}

TEST(EtcdWire, GatewayErrorsOfBothShapesAreGrpcErrors) {
  try {
    parse_answer(
        R"({"error":"etcdserver: x","code":5,"message":"etcdserver: requested lease not found"})");
    FAIL() << "no error";
  } catch (const GrpcError& error) {
    EXPECT_EQ(error.code(), 5);
    EXPECT_STREQ(error.what(), "etcdserver: requested lease not found");
  }
  try {
    parse_answer(R"({"error":{"grpc_code":9,"http_code":400,"message":"too many requests"}})");
    FAIL() << "no error";
  } catch (const GrpcError& error) {
    EXPECT_EQ(error.code(), 9);
    EXPECT_STREQ(error.what(), "too many requests");
  }
}

TEST(EtcdWire, DecodesARangeWithDefaultsLeftOut) {
  const RangeResult range = decode_range(parse_answer(
      R"({"header":{"revision":"9"},"kvs":[{"key":"aw==","create_revision":"2","mod_revision":"9","version":"3","lease":"77"},{"key":"bA==","value":"dg=="}]})"));
  EXPECT_EQ(range.revision, 9);
  ASSERT_EQ(range.kvs.size(), 2u);
  EXPECT_EQ(range.kvs[0].key, "k");
  EXPECT_EQ(range.kvs[0].value, "");
  EXPECT_EQ(range.kvs[0].create_revision, 2);
  EXPECT_EQ(range.kvs[0].mod_revision, 9);
  EXPECT_EQ(range.kvs[0].version, 3);
  EXPECT_EQ(range.kvs[0].lease, 77);
  EXPECT_EQ(range.kvs[1].value, "v");
  EXPECT_EQ(range.kvs[1].mod_revision, 0);
}

TEST(EtcdWire, MalformedFieldsAreNamed) {
  EXPECT_THAT([] { decode_range(json::parse(R"({"header":{"revision":"9x"}})")); },
              ThrowsMessage<std::runtime_error>(HasSubstr("\"revision\" is not an int64")));
  EXPECT_THAT([] { decode_range(json::parse(R"({"kvs":[{"key":"!!"}]})")); },
              ThrowsMessage<std::runtime_error>(HasSubstr("\"key\" is not base64")));
  EXPECT_THAT([] { decode_range(json::parse(R"({"kvs":{}})")); },
              ThrowsMessage<std::runtime_error>(HasSubstr("\"kvs\" is not an array")));
  EXPECT_THAT([] { decode_ttl(json::parse(R"({"TTL":true})")); },
              ThrowsMessage<std::runtime_error>(HasSubstr("\"TTL\" is not an int64")));
}

TEST(EtcdWire, DecodesWatchMessages) {
  const WatchMessage events = decode_watch(stream_result(parse_answer(
      R"({"result":{"header":{"revision":"8"},"events":[{"kv":{"key":"aw==","mod_revision":"7","value":"dg=="}},{"type":"DELETE","kv":{"key":"aw==","mod_revision":"8"}}]}})")));
  EXPECT_FALSE(events.canceled);
  EXPECT_EQ(events.batch.revision, 8);
  ASSERT_EQ(events.batch.events.size(), 2u);
  EXPECT_EQ(events.batch.events[0].type, Event::Type::kPut);
  EXPECT_EQ(events.batch.events[0].kv.value, "v");
  EXPECT_EQ(events.batch.events[1].type, Event::Type::kDelete);
  EXPECT_EQ(events.batch.events[1].kv.mod_revision, 8);

  const WatchMessage compacted = decode_watch(stream_result(
      parse_answer(R"({"result":{"header":{},"canceled":true,"compact_revision":"6"}})")));
  EXPECT_TRUE(compacted.canceled);
  EXPECT_EQ(compacted.compact_revision, 6);
  EXPECT_THAT([] { stream_result(json::parse(R"({"header":{}})")); },
              ThrowsMessage<std::runtime_error>(HasSubstr("without \"result\"")));
  EXPECT_THAT([] { decode_watch(json::parse(R"({"events":[{"type":"PATCH"}]})")); },
              ThrowsMessage<std::runtime_error>(HasSubstr("unknown event type PATCH")));
}

TEST(EtcdWire, StreamLinesJoinPiecesAndSkipBlankLines) {
  std::vector<std::string> lines;
  StreamLines splitter([&](std::string_view line) { lines.emplace_back(line); });
  splitter.feed("{\"a\"");
  splitter.feed(":1}\n\n{\"b\":2}\r\n{\"c\"");
  splitter.feed(":3}");
  EXPECT_THAT(lines, ElementsAre("{\"a\":1}", "{\"b\":2}\r"));
  splitter.finish();
  EXPECT_THAT(lines, ElementsAre("{\"a\":1}", "{\"b\":2}\r", "{\"c\":3}"));
}

TEST(EtcdWire, AStreamLineOverTheLimitIsRefusedNamingIt) {
  std::vector<std::string> lines;
  StreamLines splitter([&](std::string_view line) { lines.emplace_back(line); }, 8);
  splitter.feed("12345678\n");
  splitter.feed("1234");
  EXPECT_THAT([&] { splitter.feed("56789"); },
              ThrowsMessage<std::runtime_error>(HasSubstr("over the limit of 8 bytes")));
  EXPECT_THAT(lines, ElementsAre("12345678"));
}

}  // namespace
}  // namespace gantry::etcd
