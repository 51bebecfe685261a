// Endpoints: an unreachable one is passed over, none reachable is an error
// naming them all.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "etcd/client.hpp"
#include "support/free_port.hpp"
#include "tests/etcd/etcd_server.hpp"

namespace gantry::etcd {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// A loopback URL nothing listens on (the port was free a moment ago).
std::string unreachable_endpoint() {
  return "http://127.0.0.1:" + std::to_string(support::free_loopback_port());
}

TEST(EtcdFailover, AnUnreachableFirstEndpointFallsOverToTheSecond) {
  testing::EtcdServer server;
  Client client({unreachable_endpoint(), server.endpoint()});
  client.put("k", "v");
  EXPECT_EQ(client.get("k").kvs.at(0).value, "v");
}

TEST(EtcdFailover, NoReachableEndpointIsAnErrorNamingEachOne) {
  const std::string first = unreachable_endpoint(), second = unreachable_endpoint();
  Client client({first, second});
  EXPECT_THAT([&] { client.get("k"); },
              ThrowsMessage<std::runtime_error>(AllOf(
                  HasSubstr("no endpoint could be connected"), HasSubstr("etcd endpoint " + first),
                  HasSubstr("etcd endpoint " + second), HasSubstr("connect"))));
}

TEST(EtcdFailover, EndpointsMustBeHttpOrHttpsUrls) {
  EXPECT_NO_THROW(Client({"https://127.0.0.1:2379"}));
  EXPECT_THAT([] { Client({"grpc://127.0.0.1:2379"}); },
              ThrowsMessage<std::runtime_error>(HasSubstr("\"grpc://127.0.0.1:2379\"")));
  EXPECT_THAT([] { Client({"127.0.0.1:2379"}); },
              ThrowsMessage<std::runtime_error>(
                  HasSubstr("not an http://host:port or https://host:port URL")));
  EXPECT_THAT([] { Client(std::vector<std::string>{}); },
              ThrowsMessage<std::runtime_error>(HasSubstr("no endpoints")));
}

}  // namespace
}  // namespace gantry::etcd
