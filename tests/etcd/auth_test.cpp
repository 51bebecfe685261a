// etcd's authentication through the gateway against a real etcd with auth
// enabled (tests/etcd/etcd_server.hpp): the right password works, a wrong
// one or none is refused saying so, and a token etcd forgot is replaced
// without the caller noticing, a write applied exactly once.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "etcd/client.hpp"
#include "etcd/request_json.hpp"
#include "tests/etcd/etcd_server.hpp"

namespace gantry::etcd {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

constexpr const char* kUser = "gantry";
constexpr const char* kPassword = "s3cret pass";

TransportOptions as(const Access& base, const std::string& user, const std::string& password) {
  TransportOptions options;
  options.access = base;
  options.access.auth = Credentials{user, password};
  return options;
}

class EtcdAuth : public ::testing::Test {
 protected:
  void SetUp() override { server_.enable_auth(kUser, kPassword); }

  testing::EtcdServer server_;
  Client client_{{server_.endpoint()}, as({}, kUser, kPassword)};
};

TEST_F(EtcdAuth, TheRightPasswordReadsAndWrites) {
  client_.put("jobs/a", "one");
  const RangeResult got = client_.get("jobs/a");
  ASSERT_EQ(got.kvs.size(), 1u);
  EXPECT_EQ(got.kvs[0].value, "one");
}

TEST_F(EtcdAuth, AWrongPasswordIsRefusedNamingTheUser) {
  Client wrong({server_.endpoint()}, as({}, kUser, "guess"));
  EXPECT_THAT([&] { wrong.put("jobs/a", "one"); },
              ThrowsMessage<GrpcError>(AllOf(HasSubstr("POST /v3/auth/authenticate"),
                                             HasSubstr("invalid user ID or password"),
                                             HasSubstr("etcd user \"gantry\""))));
  EXPECT_TRUE(client_.get("jobs/a").kvs.empty());
}

TEST_F(EtcdAuth, NoCredentialsAreRefused) {
  Client anonymous({server_.endpoint()});
  EXPECT_THAT([&] { anonymous.get("jobs/a"); },
              ThrowsMessage<GrpcError>(HasSubstr("user name is empty")));
}

// drop_tokens ends every token etcd gave, as their expiry would. The
// transport's token before and after shows a new one was asked for.
TEST_F(EtcdAuth, AForgottenTokenIsReplacedAndTheRefusedCallSentOnce) {
  Transport transport({server_.endpoint()}, as({}, kUser, kPassword));
  const auto revision = [](const nlohmann::json& answer) { return header_revision(answer); };
  transport.call("/v3/kv/put", put_request("jobs/a", "one", 0), revision);
  const std::string old_token = transport.token();
  server_.drop_tokens();

  // A transaction that may apply once only: created if absent.
  const nlohmann::json create_b =
      txn_request({Compare::create_revision("jobs/b", Compare::Result::kEqual, 0)},
                  {Op::put("jobs/b", "two")}, {});
  EXPECT_TRUE(transport.call("/v3/kv/txn", create_b, decode_txn).succeeded);
  EXPECT_NE(transport.token(), old_token);
  std::string endpoint;
  std::atomic<bool> stop{false};
  EXPECT_THAT(
      [&] {
        transport.stream(
            "/v3/kv/range", range_request("jobs/b", false), old_token,
            [](std::string_view) { return true; }, stop, endpoint);
      },
      ThrowsMessage<GrpcError>(HasSubstr("invalid auth token")));
  const RangeResult b = client_.get("jobs/b");
  ASSERT_EQ(b.kvs.size(), 1u);
  EXPECT_EQ(b.kvs[0].version, 1) << "written once";
}

TEST_F(EtcdAuth, AWatchAndALeaseGoOnAfterTheTokenWasForgotten) {
  const std::int64_t put = client_.put("jobs/a", "one");
  const std::int64_t lease = client_.grant_lease(60);
  server_.drop_tokens();

  std::atomic<bool> stop{false};
  std::vector<Event> events;
  const WatchResult result = client_.watch(
      "jobs/", put,
      [&](const WatchBatch& batch) {
        events = batch.events;
        stop = true;
      },
      stop);
  EXPECT_EQ(result.end, WatchEnd::kStopped) << result.reason;
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kv.value, "one");

  server_.drop_tokens();
  EXPECT_GT(client_.keep_alive_once(lease), 0);
  server_.drop_tokens();
  client_.revoke(lease);
  EXPECT_EQ(client_.keep_alive_once(lease), 0);
}

// Credentials against an etcd that checks none are refused rather than
// ignored: the hub was told its store is protected, and it is not.
TEST(EtcdAuthOff, CredentialsForAnEtcdWithoutAuthAreRefused) {
  testing::EtcdServer server;
  Client client({server.endpoint()}, as({}, kUser, kPassword));
  EXPECT_THAT([&] { client.get("jobs/a"); },
              ThrowsMessage<GrpcError>(HasSubstr("authentication is not enabled")));
}

// TLS with a client certificate and a password together, as the hub runs.
TEST(EtcdAuthOverTls, BothTogetherReadAndWrite) {
  testing::EtcdServer server({.tls = true});
  server.enable_auth(kUser, kPassword);
  Client client({server.endpoint()}, as(server.client_access(), kUser, kPassword));
  client.put("jobs/a", "one");
  EXPECT_EQ(client.get("jobs/a").kvs.size(), 1u);
  server.drop_tokens();
  EXPECT_EQ(client.range("jobs/").kvs.size(), 1u);
}

// The gateway reaches etcd with etcd's own certificate (CN=etcd-server here):
// a request without a token must not be taken as that user's.
TEST(EtcdAuthOverTls, TheCertificateAloneIsNoUser) {
  testing::EtcdServer server({.tls = true});
  server.enable_auth("etcd-server", kPassword);
  TransportOptions options;
  options.access = server.client_access();
  Client client({server.endpoint()}, options);
  EXPECT_THAT([&] { client.put("jobs/a", "one"); },
              ThrowsMessage<GrpcError>(HasSubstr("user name is empty")));
}

}  // namespace
}  // namespace gantry::etcd
