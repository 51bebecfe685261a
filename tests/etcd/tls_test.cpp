// The client over TLS against a real etcd serving https with
// --client-cert-auth (tests/etcd/etcd_server.hpp): every kind of call goes
// through, and etcd or the client refuses what does not prove itself.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "etcd/client.hpp"
#include "tests/etcd/etcd_server.hpp"

namespace gantry::etcd {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TransportOptions with(const Access& access) {
  TransportOptions options;
  options.access = access;
  return options;
}

// The events of the first batch a watch from `from_revision` delivers.
std::vector<Event> first_batch(Client& client, const std::string& prefix,
                               std::int64_t from_revision) {
  std::atomic<bool> stop{false};
  std::vector<Event> events;
  const WatchResult result = client.watch(
      prefix, from_revision,
      [&](const WatchBatch& batch) {
        events = batch.events;
        stop = true;
      },
      stop);
  EXPECT_EQ(result.end, WatchEnd::kStopped) << result.reason;
  return events;
}

class EtcdTls : public ::testing::Test {
 protected:
  testing::EtcdServer server_{{.tls = true}};
  Client client_{{server_.endpoint()}, with(server_.client_access())};
};

TEST_F(EtcdTls, KeysTransactionsLeasesAndWatchesGoThroughHttps) {
  ASSERT_EQ(server_.endpoint().rfind("https://", 0), 0u);
  const std::int64_t put = client_.put("jobs/a", "one");
  const RangeResult got = client_.get("jobs/a");
  ASSERT_EQ(got.kvs.size(), 1u);
  EXPECT_EQ(got.kvs[0].value, "one");

  const TxnResult txn = client_.txn({Compare::mod_revision("jobs/a", Compare::Result::kEqual, put)},
                                    {Op::put("jobs/b", "two")});
  EXPECT_TRUE(txn.succeeded);
  EXPECT_EQ(client_.range("jobs/").kvs.size(), 2u);

  const std::int64_t lease = client_.grant_lease(60);
  client_.put("jobs/leased", "x", lease);
  EXPECT_GT(client_.keep_alive_once(lease), 0);
  client_.revoke(lease);
  EXPECT_TRUE(client_.get("jobs/leased").kvs.empty());

  const std::vector<Event> events = first_batch(client_, "jobs/", put);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events[0].kv.key, "jobs/a");
  EXPECT_EQ(events[0].kv.value, "one");
}

// etcd ends the connection after the handshake: with an alert the error
// explains, or a reset when its close overtook the request (both happen).
TEST_F(EtcdTls, WithoutAClientCertificateEtcdRefusesTheConnection) {
  Access access = server_.client_access();
  access.tls.cert_file.clear();
  access.tls.key_file.clear();
  Client anonymous({server_.endpoint()}, with(access));
  EXPECT_THAT([&] { anonymous.get("jobs/a"); },
              ThrowsMessage<std::runtime_error>(
                  HasSubstr("etcd endpoint " + server_.endpoint() + ": POST /v3/kv/range: ")));
}

TEST_F(EtcdTls, AClientCertificateAnotherCaSignedIsRefused) {
  Access access = server_.client_access();
  access.tls.cert_file = server_.pki().stranger_cert_file.string();
  access.tls.key_file = server_.pki().stranger_key_file.string();
  Client stranger({server_.endpoint()}, with(access));
  EXPECT_THAT([&] { stranger.get("jobs/a"); },
              ThrowsMessage<std::runtime_error>(
                  HasSubstr("etcd endpoint " + server_.endpoint() + ": POST /v3/kv/range: ")));
}

TEST_F(EtcdTls, AServerTheGivenCaDidNotSignIsRefusedInTheHandshake) {
  Access access = server_.client_access();
  access.tls.ca_file = server_.pki().other_ca_file.string();
  Client misled({server_.endpoint()}, with(access));
  EXPECT_THAT([&] { misled.get("jobs/a"); },
              ThrowsMessage<std::runtime_error>(
                  AllOf(HasSubstr("etcd endpoint " + server_.endpoint()),
                        HasSubstr("TLS handshake"), HasSubstr("certificate verify failed"))));
}

// etcd's own rule, easy to trip over: once its authentication is on, the
// gateway refuses a client certificate with a CommonName. The error says what to do.
TEST_F(EtcdTls, WithAuthOnACertificateWithACommonNameIsRefusedSayingWhy) {
  server_.enable_auth("gantry", "secret");
  TransportOptions options = with(server_.client_access());
  options.access.tls.cert_file = server_.pki().client_cert_file.string();  // CN=client
  options.access.tls.key_file = server_.pki().client_key_file.string();
  options.access.auth = Credentials{"gantry", "secret"};
  Client named({server_.endpoint()}, options);
  EXPECT_THAT([&] { named.get("jobs/a"); },
              ThrowsMessage<std::runtime_error>(
                  AllOf(HasSubstr("HTTP 400"), HasSubstr("use a client certificate without one"))));
}

TEST_F(EtcdTls, APlainHttpEndpointIsNotTalkedToWithTlsFiles) {
  const std::string plain = "http://127.0.0.1:2379";
  EXPECT_THAT([&] { Client({plain}, with(server_.client_access())); },
              ThrowsMessage<std::runtime_error>(
                  AllOf(HasSubstr(plain), HasSubstr("TLS files given for a plain http://"))));
}

TEST_F(EtcdTls, PlainHttpToAnEtcdServingHttpsOnlyIsNamedAsThePossibleCause) {
  std::string plain = server_.endpoint();
  plain.replace(0, 5, "http");  // https:// -> http://
  Client client({plain});
  EXPECT_THAT([&] { client.get("jobs/a"); },
              ThrowsMessage<std::runtime_error>(AllOf(HasSubstr("etcd endpoint " + plain),
                                                      HasSubstr("if it serves https only"))));
}

TEST_F(EtcdTls, UnreadableOrBadFilesAreNamed) {
  Access access = server_.client_access();
  access.tls.ca_file = "/nonexistent/ca.crt";
  EXPECT_THAT([&] { Client({server_.endpoint()}, with(access)); },
              ThrowsMessage<std::runtime_error>(
                  HasSubstr("cannot read the CA certificate /nonexistent/ca.crt")));
  access = server_.client_access();
  access.tls.cert_file = access.tls.key_file;  // a key is not a certificate
  EXPECT_THAT([&] { Client({server_.endpoint()}, with(access)); },
              ThrowsMessage<std::runtime_error>(
                  HasSubstr("cannot use the client certificate " + access.tls.key_file)));
  access = server_.client_access();
  access.tls.key_file.clear();
  EXPECT_THAT(
      [&] { Client({server_.endpoint()}, with(access)); },
      ThrowsMessage<std::runtime_error>(HasSubstr("needs both the certificate and its key")));
}

}  // namespace
}  // namespace gantry::etcd
