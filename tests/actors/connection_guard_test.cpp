// ConnectionGuard and the libzmq limits on a real ROUTER over loopback TCP:
// what a hostile or broken peer can make the hub's sockets hold.
#include "actors/connection_guard.hpp"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "actors/fd_limit.hpp"
#include "actors/socket_limits.hpp"
#include "raw_zmtp_client.hpp"

namespace gantry::actors {
namespace {

using namespace std::chrono_literals;
using testing::RawZmtpClient;
using TimePoint = ConnectionGuard::TimePoint;

// Guards against a hang only; the tests wait for events, not for time.
constexpr auto kGiveUpAfter = 30s;
// The guard's clock: tests choose it; nothing here reads the real one for it.
const TimePoint kStart{std::chrono::hours(1)};

SocketLimits small_limits() {
  SocketLimits limits;
  limits.max_frame_bytes = 1024;
  limits.max_connections = 4;
  return limits;
}

// Answers every ZAP request (RFC 27) with 200: the hub's handler will check
// keys; here it only has to exist, so that handshakes wait for it.
void allow_zap_request(zmq::socket_t& zap) {
  std::vector<zmq::message_t> request;
  do {
    request.emplace_back();
    (void)zap.recv(request.back(), zmq::recv_flags::none);
  } while (request.back().more());
  const std::string request_id = request.size() > 1 ? request[1].to_string() : "";
  const std::vector<std::string> reply{"1.0", request_id, "200", "OK", "", ""};
  for (std::size_t i = 0; i < reply.size(); ++i) {
    (void)zap.send(zmq::buffer(reply[i]),
                   i + 1 < reply.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
  }
}

enum class Handshake { kImmediate, kThroughZap };

// A ROUTER on a free loopback port with the limits applied and a guard on it;
// with Handshake::kThroughZap, each handshake also waits for a ZAP answer from
// the thread that runs the guard, as the hub's will.
struct GuardedRouter {
  explicit GuardedRouter(const SocketLimits& limits, Handshake handshake = Handshake::kImmediate) {
    router.set(zmq::sockopt::linger, 0);
    if (handshake == Handshake::kThroughZap) {
      zap.emplace(context, zmq::socket_type::rep);
      zap->set(zmq::sockopt::linger, 0);
      zap->bind("inproc://zeromq.zap.01");
      router.set(zmq::sockopt::zap_domain, "test");
    }
    apply_socket_limits(router, limits);
    guard = std::make_unique<ConnectionGuard>(context, router, "test", limits);
    router.bind("tcp://127.0.0.1:*");
    endpoint = router.get(zmq::sockopt::last_endpoint);
    port = std::stoi(endpoint.substr(endpoint.rfind(':') + 1));
  }

  // Handles monitor events (stamped `now`), then ZAP requests, until
  // `done()`; false on a hang.
  template <class Condition>
  bool pump_until(Condition done, TimePoint now = kStart) {
    const auto give_up = std::chrono::steady_clock::now() + kGiveUpAfter;
    while (!done()) {
      if (std::chrono::steady_clock::now() > give_up) return false;
      std::vector<zmq::pollitem_t> items;
      if (guard) items.push_back({guard->monitor_socket().handle(), 0, ZMQ_POLLIN, 0});
      if (zap) items.push_back({zap->handle(), 0, ZMQ_POLLIN, 0});
      if (items.empty()) items.push_back({router.handle(), 0, ZMQ_POLLIN, 0});
      (void)zmq::poll(items, 10ms);
      if (guard && (items.front().revents & ZMQ_POLLIN)) guard->on_monitor_event(now);
      if (zap && (items.back().revents & ZMQ_POLLIN)) allow_zap_request(*zap);
    }
    return true;
  }

  struct Received {
    std::string routing_id;
    zmq::message_t payload;
  };
  // The next message on the router, pumping the guard and ZAP meanwhile.
  std::optional<Received> receive(TimePoint now = kStart) {
    bool readable = false;
    if (!pump_until(
            [&] {
              readable = router.get(zmq::sockopt::events) & ZMQ_POLLIN;
              return readable;
            },
            now)) {
      return std::nullopt;
    }
    Received received;
    zmq::message_t routing_id;
    (void)router.recv(routing_id, zmq::recv_flags::none);
    received.routing_id = routing_id.to_string();
    while (router.get(zmq::sockopt::rcvmore)) {
      (void)router.recv(received.payload, zmq::recv_flags::none);
    }
    return received;
  }
  bool nothing_more_received() {
    zmq::message_t part;
    return !router.recv(part, zmq::recv_flags::dontwait);
  }

  zmq::context_t context{1};  // one libzmq I/O thread, as the hub's
  std::optional<zmq::socket_t> zap;
  zmq::socket_t router{context, zmq::socket_type::router};
  std::unique_ptr<ConnectionGuard> guard;  // destroyed before the router closes
  std::string endpoint;
  int port = 0;
};

zmq::socket_t dealer_to(GuardedRouter& server, const std::string& routing_id) {
  zmq::socket_t dealer(server.context, zmq::socket_type::dealer);
  dealer.set(zmq::sockopt::linger, 0);
  dealer.set(zmq::sockopt::routing_id, routing_id);
  dealer.set(zmq::sockopt::reconnect_ivl, -1);  // a closed connection stays closed
  dealer.connect(server.endpoint);
  return dealer;
}

std::optional<std::string> receive_reply(zmq::socket_t& dealer) {
  std::vector<zmq::pollitem_t> items{{dealer.handle(), 0, ZMQ_POLLIN, 0}};
  if (zmq::poll(items, std::chrono::duration_cast<std::chrono::milliseconds>(kGiveUpAfter)) == 0) {
    return std::nullopt;
  }
  zmq::message_t reply;
  (void)dealer.recv(reply, zmq::recv_flags::none);
  return reply.to_string();
}

// The DEALER's message reaches the ROUTER and the ROUTER's answer comes back.
void expect_served(GuardedRouter& server, zmq::socket_t& dealer, const std::string& routing_id) {
  ASSERT_TRUE(dealer.send(zmq::str_buffer("ping"), zmq::send_flags::none));
  auto received = server.receive();
  ASSERT_TRUE(received);
  EXPECT_EQ(received->routing_id, routing_id);
  EXPECT_EQ(received->payload.to_string(), "ping");
  server.router.send(zmq::buffer(routing_id), zmq::send_flags::sndmore);
  server.router.send(zmq::str_buffer("pong"), zmq::send_flags::none);
  EXPECT_EQ(receive_reply(dealer), "pong");
}

class ConnectionGuardTest : public ::testing::Test {
 protected:
  void SetUp() override { spdlog::set_level(spdlog::level::err); }
};

TEST_F(ConnectionGuardTest, FrameOverTheDropSizeClosesItsConnectionBeforeTheBodyArrives) {
  GuardedRouter server(small_limits());
  RawZmtpClient hostile(server.port);
  ASSERT_TRUE(hostile.send_handshake());
  // 100 MB announced, not one byte of it sent: libzmq must decide on the header.
  ASSERT_TRUE(hostile.send_frame_header(100'000'000));
  EXPECT_TRUE(hostile.wait_closed_by_server(kGiveUpAfter));
  ASSERT_TRUE(server.pump_until([&] { return server.guard->connection_count() == 0; }));

  zmq::socket_t dealer = dealer_to(server, "well-behaved");
  expect_served(server, dealer, "well-behaved");
  EXPECT_TRUE(server.nothing_more_received());
}

TEST_F(ConnectionGuardTest, LibzmqClientSendingAFrameOverTheDropSizeIsDisconnected) {
  GuardedRouter server(small_limits());
  zmq::socket_t big_sender = dealer_to(server, "big");
  expect_served(server, big_sender, "big");
  ASSERT_TRUE(server.pump_until([&] { return server.guard->connection_count() == 1; }));

  const std::string too_big(static_cast<std::size_t>(drop_frame_bytes(small_limits())) + 1, 'x');
  ASSERT_TRUE(big_sender.send(zmq::buffer(too_big), zmq::send_flags::none));
  ASSERT_TRUE(server.pump_until([&] { return server.guard->connection_count() == 0; }));

  zmq::socket_t other = dealer_to(server, "other");
  expect_served(server, other, "other");
  EXPECT_TRUE(server.nothing_more_received());
}

TEST_F(ConnectionGuardTest, FrameBetweenTheLimitsArrivesToBeAnsweredWithAnError) {
  GuardedRouter server(small_limits());
  zmq::socket_t dealer = dealer_to(server, "eager");
  const std::string over_limit(small_limits().max_frame_bytes + 1, 'x');
  ASSERT_TRUE(dealer.send(zmq::buffer(over_limit), zmq::send_flags::none));
  auto received = server.receive();
  ASSERT_TRUE(received);
  const auto error = oversized_frame_error(received->payload.size(), small_limits());
  ASSERT_TRUE(error);
  EXPECT_EQ(*error, "frame of 1025 bytes exceeds the limit of 1024 bytes (--max-frame-bytes)");
  // The connection stays: the same client is answered.
  expect_served(server, dealer, "eager");
}

TEST_F(ConnectionGuardTest, ConnectionsOverTheLimitAreClosedNewestFirst) {
  GuardedRouter server(small_limits());
  std::vector<RawZmtpClient> first;
  for (int i = 0; i < 4; ++i) first.emplace_back(server.port);
  ASSERT_TRUE(server.pump_until([&] { return server.guard->connection_count() == 4; }));

  std::vector<RawZmtpClient> extra;
  for (int i = 0; i < 3; ++i) extra.emplace_back(server.port);
  ASSERT_TRUE(server.pump_until([&] { return server.guard->refused_count() == 3; }));
  for (RawZmtpClient& client : extra) EXPECT_TRUE(client.wait_closed_by_server(kGiveUpAfter));
  EXPECT_EQ(server.guard->connection_count(), 4);
  for (RawZmtpClient& client : first) EXPECT_FALSE(client.closed_by_server());

  // Two leave; a newcomer is served.
  first.erase(first.begin() + 2, first.end());
  ASSERT_TRUE(server.pump_until([&] { return server.guard->connection_count() == 2; }));
  zmq::socket_t newcomer = dealer_to(server, "newcomer");
  expect_served(server, newcomer, "newcomer");
  EXPECT_TRUE(server.pump_until([&] { return server.guard->connection_count() == 3; }));
}

TEST_F(ConnectionGuardTest, ConnectionsSilentLongerThanTheIdleTimeoutAreClosed) {
  const SocketLimits limits = small_limits();
  GuardedRouter server(limits);
  RawZmtpClient silent(server.port);
  ASSERT_TRUE(silent.send_handshake());
  zmq::socket_t talker = dealer_to(server, "talker");
  ASSERT_TRUE(server.pump_until([&] { return server.guard->connection_count() == 2; }, kStart));

  ASSERT_TRUE(talker.send(zmq::str_buffer("still here"), zmq::send_flags::none));
  auto received = server.receive();
  ASSERT_TRUE(received);
  const TimePoint talked_at = kStart + limits.idle_timeout - 1s;
  server.guard->note_frame(received->payload, talked_at);

  EXPECT_EQ(server.guard->expire_idle(kStart + limits.idle_timeout), 0);
  EXPECT_EQ(server.guard->expire_idle(kStart + limits.idle_timeout + 1s), 1);
  EXPECT_TRUE(silent.wait_closed_by_server(kGiveUpAfter));
  EXPECT_EQ(server.guard->connection_count(), 1);
  expect_served(server, talker, "talker");  // the same connection: it cannot reconnect

  EXPECT_EQ(server.guard->expire_idle(talked_at + limits.idle_timeout + 1s), 1);
  ASSERT_TRUE(server.pump_until([&] { return server.guard->connection_count() == 0; }));
  EXPECT_EQ(server.guard->expired_count(), 2u);
}

TEST_F(ConnectionGuardTest, ExpireIdleLooksAtConnectionsOncePerSweepInterval) {
  GuardedRouter server(small_limits());
  EXPECT_EQ(server.guard->poll_timeout(kStart), 0ms);
  EXPECT_EQ(server.guard->expire_idle(kStart), 0);
  EXPECT_EQ(server.guard->poll_timeout(kStart), ConnectionGuard::kSweepInterval);
  EXPECT_EQ(server.guard->poll_timeout(kStart + 400ms), 600ms);
  EXPECT_EQ(server.guard->poll_timeout(kStart + ConnectionGuard::kSweepInterval), 0ms);
}

TEST_F(ConnectionGuardTest, CountReturnsToZeroAfterClientsClose) {
  SocketLimits limits = small_limits();
  limits.max_connections = 100;
  GuardedRouter server(limits);
  {
    std::vector<RawZmtpClient> raw;
    std::vector<zmq::socket_t> dealers;
    for (int i = 0; i < 5; ++i) {
      raw.emplace_back(server.port);
      dealers.push_back(dealer_to(server, "dealer-" + std::to_string(i)));
      expect_served(server, dealers.back(), "dealer-" + std::to_string(i));
    }
    ASSERT_TRUE(server.pump_until([&] { return server.guard->connection_count() == 10; }));
  }
  EXPECT_TRUE(server.pump_until([&] { return server.guard->connection_count() == 0; }));
}

// A refused client must not lose the request it sent while connecting. Its
// handshake waits for ZAP; the guard reads ACCEPTED (emitted before the ZAP
// request, by the same libzmq I/O thread) first and shuts the connection down
// before the handshake completes, so the message stays queued in the client,
// which reconnects and is served once there is room. (Without ZAP a NULL
// handshake completes at once and the first message can be lost.)
TEST_F(ConnectionGuardTest, RefusedClientIsServedItsQueuedRequestOnceThereIsRoom) {
  SocketLimits limits = small_limits();
  limits.max_connections = 2;
  GuardedRouter server(limits, Handshake::kThroughZap);
  std::vector<zmq::socket_t> holders;
  for (const char* id : {"first", "second"}) {
    holders.push_back(dealer_to(server, id));
    ASSERT_TRUE(holders.back().send(zmq::str_buffer("hold"), zmq::send_flags::none));
  }
  ASSERT_TRUE(server.pump_until([&] { return server.guard->connection_count() == 2; }));
  ASSERT_TRUE(server.receive());
  ASSERT_TRUE(server.receive());

  zmq::socket_t late(server.context, zmq::socket_type::dealer);
  late.set(zmq::sockopt::linger, 0);
  late.set(zmq::sockopt::routing_id, "late");
  late.set(zmq::sockopt::reconnect_ivl, 10);
  late.connect(server.endpoint);
  ASSERT_TRUE(late.send(zmq::str_buffer("queued while refused"), zmq::send_flags::none));
  ASSERT_TRUE(server.pump_until([&] { return server.guard->refused_count() >= 3; }));
  EXPECT_TRUE(server.nothing_more_received());

  holders.pop_back();
  auto received = server.receive();
  ASSERT_TRUE(received);
  EXPECT_EQ(received->routing_id, "late");
  EXPECT_EQ(received->payload.to_string(), "queued while refused");
}

// libzmq gives a handed-over routing id to the new connection but leaves the
// old one open, pipe-less, holding its descriptor, as long as the peer keeps
// it; ZMTP heartbeats keep it alive. Only the idle timeout ends it.
TEST_F(ConnectionGuardTest, ConnectionDisplacedByRoutingIdHandoverExpiresWhenIdle) {
  const SocketLimits limits = small_limits();
  GuardedRouter server(limits);
  server.router.set(zmq::sockopt::router_handover, 1);
  zmq::socket_t displaced = dealer_to(server, "agent");
  expect_served(server, displaced, "agent");
  zmq::socket_t successor = dealer_to(server, "agent");
  ASSERT_TRUE(successor.send(zmq::str_buffer("hello"), zmq::send_flags::none));
  auto received = server.receive();
  ASSERT_TRUE(received);
  ASSERT_TRUE(server.pump_until([&] { return server.guard->connection_count() == 2; }));
  EXPECT_EQ(server.guard->expire_idle(kStart + limits.idle_timeout - 1s), 0);
  server.guard->note_frame(received->payload, kStart + limits.idle_timeout - 1s);

  EXPECT_EQ(server.guard->expire_idle(kStart + limits.idle_timeout + 1s), 1);
  ASSERT_TRUE(server.pump_until([&] { return server.guard->connection_count() == 1; }));
  expect_served(server, successor, "agent");
}

// libzmq sends monitor events with a blocking send; a bounded event queue that
// nobody drains for a while would stop its I/O thread, and every connection.
TEST_F(ConnectionGuardTest, UnreadMonitorEventsNeverStallTheSocket) {
  SocketLimits limits = small_limits();
  limits.max_connections = 10'000;
  GuardedRouter server(limits);
  // 2,200 events: past the 2,000 an inproc pipe holds by default.
  constexpr int kConnections = 1100;
  for (int i = 0; i < kConnections; ++i) RawZmtpClient brief(server.port);
  zmq::socket_t dealer = dealer_to(server, "after-the-flood");
  expect_served(server, dealer, "after-the-flood");
  EXPECT_TRUE(server.pump_until([&] { return server.guard->connection_count() == 1; }));
}

TEST_F(ConnectionGuardTest, SocketKeepsWorkingAfterTheGuardIsGone) {
  GuardedRouter server(small_limits());
  server.guard.reset();
  for (int i = 0; i < 1100; ++i) RawZmtpClient brief(server.port);
  zmq::socket_t dealer = dealer_to(server, "unguarded");
  expect_served(server, dealer, "unguarded");
}

}  // namespace
}  // namespace gantry::actors
