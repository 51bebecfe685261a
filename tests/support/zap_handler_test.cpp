// A CurveZMQ server whose ZAP handler accepts one key: the allowed client's
// messages arrive carrying the user id the handler gave, an unlisted client is
// refused (its monitor sees status 400) and never heard.
#include "support/zap_handler.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "support/curve_socket.hpp"

namespace gantry::support {
namespace {

using namespace std::chrono_literals;

constexpr auto patience = 10s;  // bounds a broken test; a pass never waits it out

struct ZapHandlerTest : ::testing::Test {
  zmq::context_t context;
  zmq::socket_t zap = bind_zap_handler(context);
  CurveKeyPair server_keys = generate_curve_keypair("server");
  CurveKeyPair alice = generate_curve_keypair("alice");
  zmq::socket_t server{context, zmq::socket_type::router};
  std::string endpoint;
  std::vector<ZapRequest> requests;

  void SetUp() override {
    server.set(zmq::sockopt::linger, 0);
    make_curve_server(server, server_keys);
    server.bind("tcp://127.0.0.1:*");
    endpoint = server.get(zmq::sockopt::last_endpoint);
  }

  ZapVerdict decide(const ZapRequest& request) {
    requests.push_back(request);
    if (request.curve_public_key == alice.public_key) return {true, "alice", ""};
    return {false, "", "unknown key"};
  }

  zmq::socket_t client(const CurveKeyPair& own, const std::string& routing_id) {
    zmq::socket_t socket(context, zmq::socket_type::dealer);
    socket.set(zmq::sockopt::linger, 0);
    socket.set(zmq::sockopt::routing_id, routing_id);
    make_curve_client(socket, {server_keys.public_key, own});
    socket.connect(endpoint);
    return socket;
  }

  // Serves the ZAP handler until the server has a message (its body and
  // User-Id) or `other` is readable (then an empty body).
  std::pair<std::string, std::string> serve_until_message(zmq::socket_t* other = nullptr) {
    const auto give_up = std::chrono::steady_clock::now() + patience;
    while (std::chrono::steady_clock::now() < give_up) {
      std::vector<zmq::pollitem_t> items{{zap.handle(), 0, ZMQ_POLLIN, 0},
                                         {server.handle(), 0, ZMQ_POLLIN, 0}};
      if (other != nullptr) items.push_back({other->handle(), 0, ZMQ_POLLIN, 0});
      zmq::poll(items, 100ms);
      if (items[0].revents & ZMQ_POLLIN) {
        answer_one_zap_request(zap, [this](const ZapRequest& r) { return decide(r); });
      }
      if (items[1].revents & ZMQ_POLLIN) {
        zmq::message_t routing_id, body;
        (void)server.recv(routing_id);
        (void)server.recv(body);
        return {body.to_string(), body.gets("User-Id")};
      }
      if (items.size() > 2 && (items[2].revents & ZMQ_POLLIN)) return {};
    }
    ADD_FAILURE() << "nothing happened within " << patience.count() << "s";
    return {};
  }
};

TEST_F(ZapHandlerTest, AllowedKeyIsHeardWithItsUserId) {
  zmq::socket_t allowed = client(alice, "alice-1");
  allowed.send(zmq::str_buffer("hello"), zmq::send_flags::none);
  const auto [body, user_id] = serve_until_message();
  EXPECT_EQ(body, "hello");
  EXPECT_EQ(user_id, "alice");
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].domain, curve_zap_domain);
  EXPECT_EQ(requests[0].mechanism, "CURVE");
  EXPECT_EQ(requests[0].server_identity, "") << "libzmq sends the server's own, not alice-1";
  EXPECT_EQ(requests[0].address, "127.0.0.1");
}

TEST_F(ZapHandlerTest, UnlistedKeyIsRefusedWith400AndNeverHeard) {
  zmq::socket_t stranger = client(generate_curve_keypair("stranger"), "stranger");
  // The stranger's own monitor says why: the server's ZAP status code.
  const char* monitor = "inproc://stranger-monitor";
  ASSERT_EQ(zmq_socket_monitor(stranger.handle(), monitor, ZMQ_EVENT_HANDSHAKE_FAILED_AUTH), 0);
  zmq::socket_t events(context, zmq::socket_type::pair);
  events.connect(monitor);
  stranger.send(zmq::str_buffer("let me in"), zmq::send_flags::none);

  EXPECT_EQ(serve_until_message(&events).first, "") << "the server heard the stranger";
  zmq::message_t event;
  ASSERT_TRUE(events.recv(event));
  std::uint16_t number = 0;
  std::uint32_t status = 0;
  std::memcpy(&number, event.data<char>(), sizeof number);
  std::memcpy(&status, event.data<char>() + 2, sizeof status);
  EXPECT_EQ(number, ZMQ_EVENT_HANDSHAKE_FAILED_AUTH);
  EXPECT_EQ(status, 400u);

  // The server goes on: alice is heard, and hers is the first message it sees.
  zmq::socket_t allowed = client(alice, "alice-1");
  allowed.send(zmq::str_buffer("hello"), zmq::send_flags::none);
  EXPECT_EQ(serve_until_message().first, "hello");
}

TEST_F(ZapHandlerTest, ASecondHandlerInTheSameContextIsRefused) {
  EXPECT_THROW(bind_zap_handler(context), zmq::error_t);
}

}  // namespace
}  // namespace gantry::support
