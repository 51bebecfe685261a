// The I/O bridge and the whole hub over real ZeroMQ sockets on loopback ports
// chosen by the OS (":*").
#include "actors/io_bridge.hpp"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <condition_variable>
#include <optional>
#include <zmq.hpp>

#include "actors/hub.hpp"
#include "test_support.hpp"

namespace gantry::actors {
namespace {

using namespace std::chrono_literals;
using testing::decode_as;

// Guards against a hang only; the tests wait for events, not for time.
constexpr auto kGiveUpAfter = 30s;

std::optional<std::string> receive(zmq::socket_t& socket) {
  std::vector<zmq::pollitem_t> items = {{socket.handle(), 0, ZMQ_POLLIN, 0}};
  if (zmq::poll(items, std::chrono::duration_cast<std::chrono::milliseconds>(kGiveUpAfter)) == 0) {
    return std::nullopt;
  }
  zmq::message_t message;
  if (!socket.recv(message, zmq::recv_flags::none)) return std::nullopt;
  return message.to_string();
}

zmq::socket_t connect_dealer(zmq::context_t& context, const std::string& endpoint,
                             const std::string& identity) {
  zmq::socket_t socket(context, zmq::socket_type::dealer);
  socket.set(zmq::sockopt::linger, 0);
  socket.set(zmq::sockopt::routing_id, identity);
  socket.connect(endpoint);
  return socket;
}

class HubOverSocketsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    spdlog::set_level(spdlog::level::err);
    HubOptions options;
    options.agents_endpoint = "tcp://127.0.0.1:*";
    options.admin_endpoint = "tcp://127.0.0.1:*";
    options.state_dir = dir.path() / "state";
    options.insecure = true;  // these tests speak plaintext; hub_security_test.cpp has the keys
    hub = std::make_unique<Hub>(options);
  }
  void TearDown() override { hub.reset(); }

  testing::TempDir dir;
  std::unique_ptr<Hub> hub;
  zmq::context_t context;
};

TEST_F(HubOverSocketsTest, GarbageOnTheAdminSocketGetsAnErrorAndTheNextRequestItsReply) {
  zmq::socket_t console = connect_dealer(context, hub->admin_endpoint(), "console");
  console.send(zmq::str_buffer("\xc1 this is not msgpack"), zmq::send_flags::none);
  const auto error_frame = receive(console);
  ASSERT_TRUE(error_frame) << "no answer to a garbage frame";
  EXPECT_EQ(decode_as<protocol::ErrorReply>(*error_frame).code, "bad_frame");

  console.send(zmq::buffer(protocol::encode(protocol::ListRequest{"queues"}, 7)),
               zmq::send_flags::none);
  const auto list_frame = receive(console);
  ASSERT_TRUE(list_frame) << "no answer to a ListRequest after a garbage frame";
  std::uint64_t seq = 0;
  const auto reply = decode_as<protocol::ListReply>(*list_frame, &seq);
  EXPECT_EQ(seq, 7u);
  EXPECT_TRUE(reply.ok);
  ASSERT_EQ(reply.queues.size(), 1u);
  EXPECT_EQ(reply.queues[0].name, "default");
}

TEST_F(HubOverSocketsTest, AgentHelloIsWelcomed) {
  zmq::socket_t agent = connect_dealer(context, hub->agents_endpoint(), "agent/east");
  agent.send(zmq::buffer(protocol::encode(protocol::Hello{"east", {}, "test", {}, {}}, 1)),
             zmq::send_flags::none);
  const auto welcome = receive(agent);
  ASSERT_TRUE(welcome);
  EXPECT_EQ(decode_as<protocol::Welcome>(*welcome).heartbeat_interval_ms, 1000);
}

BridgeSecurity plaintext() {
  BridgeSecurity security;
  security.insecure = true;
  return security;
}

// Collects what the bridge hands over.
class CollectingHandler final : public InboundHandler {
 public:
  void on_message(InboundMessage) override {}
  void on_undeliverable(const OutboundFrame& frame, std::string_view) override {
    std::lock_guard lock(mutex_);
    undeliverable_.push_back(frame.dispatch_id);
    changed_.notify_all();
  }
  std::vector<std::uint64_t> wait_for_undeliverable() {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, kGiveUpAfter, [this] { return !undeliverable_.empty(); });
    return undeliverable_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::uint64_t> undeliverable_;
};

TEST(IoBridgeTest, FrameForAPeerThatIsNotConnectedComesBackAsUndeliverable) {
  IoBridge bridge(BridgeEndpoints{"tcp://127.0.0.1:*", "tcp://127.0.0.1:*", {}}, plaintext());
  CollectingHandler handler;
  bridge.start(handler);
  bridge.send(
      OutboundFrame{Channel::kAgents, "agent/nowhere", protocol::encode(protocol::Prepare{}), 77});
  EXPECT_EQ(handler.wait_for_undeliverable(), std::vector<std::uint64_t>{77});
  bridge.stop();
}

TEST(IoBridgeTest, BindFailureNamesTheFlagAndEndpoint) {
  IoBridge first(BridgeEndpoints{"tcp://127.0.0.1:*", "tcp://127.0.0.1:*", {}}, plaintext());
  try {
    IoBridge second(BridgeEndpoints{first.agents_endpoint(), "tcp://127.0.0.1:*", {}}, plaintext());
    FAIL() << "bound a port that is in use";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--agents " + first.agents_endpoint()), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace gantry::actors
