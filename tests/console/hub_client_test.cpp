// The transport against a real ROUTER socket on a free loopback port.
#include "console/hub_client.hpp"

#include <gtest/gtest.h>

#include "support/free_port.hpp"
#include "tests/console/fake_hub.hpp"

namespace gantry::console {
namespace {

using std::chrono::milliseconds;
using testing::FakeHub;

protocol::ListReply canned_list() {
  protocol::ListReply reply;
  protocol::ClusterInfo east;
  east.name = "east";
  east.ready = true;
  east.nodes = 4;
  reply.clusters = {east};
  return reply;
}

TEST(HubClient, SendsTheRequestAndReturnsTheReplyEchoingItsSeq) {
  FakeHub hub(testing::always_reply(canned_list()));
  HubClient client(hub.endpoint(), milliseconds(10000), hub.client_keys());
  const auto first = client.call<protocol::ListReply>(protocol::ListRequest{"clusters"});
  const auto second = client.call<protocol::ListReply>(protocol::ListRequest{"jobs"});
  ASSERT_EQ(first.clusters.size(), 1u);
  EXPECT_EQ(first.clusters[0].name, "east");
  EXPECT_EQ(second.clusters.size(), 1u);

  const auto requests = hub.requests();
  ASSERT_EQ(requests.size(), 2u);
  protocol::DecodeError error;
  const auto request = protocol::decode_payload<protocol::ListRequest>(requests[0], error);
  ASSERT_TRUE(request) << error.message;
  EXPECT_EQ(request->kind, "clusters");
  EXPECT_NE(requests[0].seq, requests[1].seq) << "each request needs its own seq";
}

TEST(HubClient, IgnoresRepliesCarryingAnotherSeq) {
  FakeHub hub([](const std::string& request) -> std::vector<std::string> {
    protocol::DecodeError error;
    const auto envelope = protocol::decode_envelope(request, error);
    protocol::ListReply stale;
    stale.error = "stale";
    protocol::ListReply fresh;
    fresh.error = "fresh";
    return {protocol::encode(stale, envelope->seq + 100), protocol::encode(fresh, envelope->seq)};
  });
  HubClient client(hub.endpoint(), milliseconds(10000), hub.client_keys());
  EXPECT_EQ(client.call<protocol::ListReply>(protocol::ListRequest{"jobs"}).error, "fresh");
}

// Hubs sharing one store: only the one holding it has bound its socket, and
// every request goes there, whatever the order of the list.
TEST(HubClient, GivenSeveralHubsEveryRequestGoesToTheOneListening) {
  FakeHub hub(testing::always_reply(canned_list()));
  const std::string silent = "tcp://127.0.0.1:" + std::to_string(support::free_loopback_port());
  HubClient client(silent + "," + hub.endpoint(), milliseconds(10000), hub.client_keys());
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(client.call<protocol::ListReply>(protocol::ListRequest{"clusters"}).clusters.size(),
              1u);
  EXPECT_EQ(hub.requests().size(), 5u);
}

TEST(HubClient, GivenSeveralHubsOfWhichNoneListensItIsATimeoutNamingThem) {
  const std::string a = "tcp://127.0.0.1:" + std::to_string(support::free_loopback_port());
  const std::string b = "tcp://127.0.0.1:" + std::to_string(support::free_loopback_port());
  HubClient client(a + "," + b, milliseconds(100), std::nullopt);
  try {
    client.call<protocol::ListReply>(protocol::ListRequest{"jobs"});
    ADD_FAILURE() << "no hub listens, yet a reply came";
  } catch (const HubUnavailable& e) {
    EXPECT_EQ(std::string(e.what()),
              "none of the hubs at " + a + "," + b + " answered within 100ms");
  }
}

TEST(HubClient, HubThatNeverAnswersIsATimeoutNamingTheHub) {
  FakeHub hub([](const std::string&) { return std::vector<std::string>{}; });
  HubClient client(hub.endpoint(), milliseconds(100), hub.client_keys());
  try {
    client.call<protocol::ListReply>(protocol::ListRequest{"jobs"});
    ADD_FAILURE() << "a silent hub produced a reply";
  } catch (const HubUnavailable& e) {
    const std::string expected = "hub at " + hub.endpoint() + " did not answer within 100ms";
    EXPECT_EQ(std::string(e.what()).rfind(expected, 0), 0u) << e.what();
  }
  EXPECT_EQ(hub.requests().size(), 1u);  // the request did arrive
}

// kubectl's "the connection to the server ... was refused": an address where
// nothing listens is told apart from a hub that is there but silent (above).
TEST(HubClient, AnAddressWhereNothingListensIsNamedAsSuch) {
  const std::string nobody = "tcp://127.0.0.1:" + std::to_string(support::free_loopback_port());
  HubClient client(nobody, milliseconds(300), std::nullopt);
  try {
    client.call<protocol::ListReply>(protocol::ListRequest{"jobs"});
    ADD_FAILURE() << "nothing listens, yet a reply came";
  } catch (const HubUnavailable& e) {
    EXPECT_EQ(std::string(e.what()),
              "hub at " + nobody +
                  " did not answer within 300ms: could not connect (nothing listens there, or "
                  "it cannot be reached); is the hub running, and is --hub (or GANTRY_HUB) "
                  "right?");
  }
}

TEST(HubClient, ASilentHubIsNotReportedAsUnreachable) {
  FakeHub hub([](const std::string&) { return std::vector<std::string>{}; });
  HubClient client(hub.endpoint(), milliseconds(300), hub.client_keys());
  try {
    client.call<protocol::ListReply>(protocol::ListRequest{"jobs"});
    ADD_FAILURE() << "a silent hub produced a reply";
  } catch (const HubUnavailable& e) {
    EXPECT_EQ(std::string(e.what()).find("could not connect"), std::string::npos) << e.what();
  }
}

TEST(HubClient, ErrorReplyIsARefusalWithTheHubsMessage) {
  FakeHub hub(testing::always_reply(protocol::ErrorReply{"bad_payload", "ListRequest: bad kind"}));
  HubClient client(hub.endpoint(), milliseconds(10000), hub.client_keys());
  try {
    client.call<protocol::ListReply>(protocol::ListRequest{"jobs"});
    ADD_FAILURE() << "an ErrorReply was accepted";
  } catch (const HubRefusal& e) {
    EXPECT_NE(std::string(e.what()).find("bad_payload: ListRequest: bad kind"), std::string::npos)
        << e.what();
  }
}

// A hub that could not read our header cannot echo the seq and answers seq 0.
TEST(HubClient, ErrorReplyWithSeqZeroAnswersTheOutstandingRequest) {
  FakeHub hub([](const std::string&) {
    return std::vector<std::string>{
        protocol::encode_error(0, protocol::DecodeError{"bad_version", "speak 2"})};
  });
  HubClient client(hub.endpoint(), milliseconds(10000), hub.client_keys());
  EXPECT_THROW(client.call<protocol::ListReply>(protocol::ListRequest{"jobs"}), HubRefusal);
}

TEST(HubClient, UnreadableOrWronglyTypedReplyIsReported) {
  {
    FakeHub hub([](const std::string&) { return std::vector<std::string>{"not msgpack"}; });
    HubClient client(hub.endpoint(), milliseconds(10000), hub.client_keys());
    EXPECT_THROW(client.call<protocol::ListReply>(protocol::ListRequest{"jobs"}), HubUnavailable);
  }
  {
    FakeHub hub(testing::always_reply(protocol::AdminResult{true, "ok", ""}));
    HubClient client(hub.endpoint(), milliseconds(10000), hub.client_keys());
    try {
      client.call<protocol::ListReply>(protocol::ListRequest{"jobs"});
      ADD_FAILURE() << "an AdminResult was accepted as a ListReply";
    } catch (const HubUnavailable& e) {
      EXPECT_NE(std::string(e.what()).find("unexpected_type"), std::string::npos) << e.what();
    }
  }
}

TEST(HubClient, InvalidEndpointIsReportedAtConstruction) {
  EXPECT_THROW(HubClient("tcp://", milliseconds(100), std::nullopt), HubUnavailable);
}

}  // namespace
}  // namespace gantry::console
