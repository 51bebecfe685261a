// Leases against a real etcd: what issue 31's leader key hangs on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "etcd/client.hpp"
#include "tests/etcd/etcd_server.hpp"

namespace gantry::etcd {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Failure guard for awaiting an expiry etcd decides on its own.
constexpr auto kExpiryGuard = std::chrono::seconds(60);

class EtcdLease : public ::testing::Test {
 protected:
  testing::EtcdServer server_;
  Client client_{{server_.endpoint()}};
};

TEST_F(EtcdLease, AKeyOnARevokedLeaseIsGoneAndTheLeaseCannotBeKeptAlive) {
  const std::int64_t lease = client_.grant_lease(60);
  client_.put("leader", "me", lease);
  ASSERT_EQ(client_.get("leader").kvs.at(0).lease, lease);
  EXPECT_GT(client_.keep_alive_once(lease), 0);

  client_.revoke(lease);
  EXPECT_THAT(client_.get("leader").kvs, IsEmpty());
  EXPECT_EQ(client_.keep_alive_once(lease), 0);
}

TEST_F(EtcdLease, RevokingAnUnknownLeaseIsAGrpcNotFoundNamingTheEndpoint) {
  const std::int64_t lease = client_.grant_lease(60);
  client_.revoke(lease);
  try {
    client_.revoke(lease);
    FAIL() << "revoked twice";
  } catch (const GrpcError& error) {
    EXPECT_EQ(error.code(), 5);  // NOT_FOUND
    EXPECT_THAT(error.what(), AllOf(HasSubstr("etcd endpoint " + server_.endpoint()),
                                    HasSubstr("/v3/lease/revoke"), HasSubstr("lease not found")));
  }
}

// etcd raises the TTL to its minimum (about 2 s with default timings); the
// test awaits the expiry without asserting when it happens.
TEST_F(EtcdLease, ALeaseThatIsNotKeptAliveExpiresWithItsKeys) {
  const std::int64_t lease = client_.grant_lease(1);
  client_.put("leader", "me", lease);
  const auto give_up = std::chrono::steady_clock::now() + kExpiryGuard;
  while (!client_.get("leader").kvs.empty() && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // a bounded poll
  }
  EXPECT_THAT(client_.get("leader").kvs, IsEmpty());
  EXPECT_EQ(client_.keep_alive_once(lease), 0);
}

}  // namespace
}  // namespace gantry::etcd
