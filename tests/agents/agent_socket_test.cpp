// The agent's event loop against a hub played by the test over real ZeroMQ
// sockets on loopback: registration, a dispatch that runs to completion,
// garbage frames, and the session surviving hub restarts and silence.
#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

#include "agent_test_support.hpp"
#include "agents/agent_loop.hpp"
#include "agents/sim_executor.hpp"
#include "fake_hub.hpp"

namespace gantry::agents {
namespace {

using testing::FakeHub;
using testing::make_dispatch;

constexpr std::int32_t kQuietMs = 600'000;  // no heartbeats or silence during a test

// The agent loop on its own thread, stopped through its stop fd.
class AgentThread {
 public:
  AgentThread(const std::string& endpoint, SessionTiming timing)
      : core_("test", testing::small_inventory(), executor_),
        loop_(LoopConfig{endpoint, timing}, core_, executor_) {
    if (::pipe(stop_) != 0) throw std::runtime_error("pipe");
    thread_ = std::thread([this] {
      try {
        loop_.run(stop_[0]);
      } catch (const std::exception& e) {
        error_ = e.what();
      }
    });
  }
  ~AgentThread() {
    [[maybe_unused]] const ssize_t written = ::write(stop_[1], "x", 1);
    thread_.join();
    ::close(stop_[0]);
    ::close(stop_[1]);
    EXPECT_EQ(error_, "");
  }

 private:
  SimExecutor executor_;
  AgentCore core_;
  AgentLoop loop_;
  int stop_[2] = {-1, -1};
  std::thread thread_;
  std::string error_;
};

SessionTiming quiet_timing() {
  SessionTiming timing;
  timing.heartbeat_ms = kQuietMs;
  timing.initial_backoff_ms = 10;
  timing.max_backoff_ms = 40;
  return timing;
}

protocol::Welcome quiet_welcome(std::uint64_t epoch) {
  return protocol::Welcome{epoch, kQuietMs, 3};
}

// Hello -> Welcome -> UsageReport; returns the agent's identity.
std::string register_agent(FakeHub& hub, std::uint64_t epoch, protocol::Hello* hello = nullptr) {
  const testing::Received received = hub.next(epoch);
  EXPECT_EQ(received.type, protocol::MessageType::kHello);
  const auto greeting = testing::decode_as<protocol::Hello>(received);
  EXPECT_EQ(greeting.cluster, "test");
  EXPECT_EQ(greeting.labels.at("region"), "lab");
  if (hello != nullptr) *hello = greeting;
  hub.send(received.identity, protocol::encode(quiet_welcome(epoch)));
  const auto usage = hub.next_as<protocol::UsageReport>(epoch);
  EXPECT_EQ(usage.cluster, "test");
  EXPECT_EQ(usage.nodes.size(), 3u);
  return received.identity;
}

TEST(AgentSocket, RegistersRunsADispatchToCompletionAndSurvivesGarbage) {
  FakeHub hub;
  AgentThread agent(hub.endpoint(), quiet_timing());
  const std::string identity = register_agent(hub, 1);
  EXPECT_EQ(identity, "agent/test");

  hub.send(identity, protocol::encode(make_dispatch(1, "quick", {{"worker", 2, 1}}, 0,
                                                    {{"gantry.io/sim-duration", "0.01"}})));
  EXPECT_EQ(hub.next_as<protocol::Admit>(1).dispatch_id, 1u);
  EXPECT_EQ(hub.next_as<protocol::StatusUpdate>(1).phase, "Running");
  const auto running = hub.next_as<protocol::UsageReport>(1);
  EXPECT_EQ(running.accounted_dispatches, (std::vector<std::uint64_t>{1}));
  EXPECT_EQ(testing::allocated_gpus(running), 2);
  const auto done = hub.next_as<protocol::StatusUpdate>(1);
  EXPECT_EQ(done.phase, "Completed");
  EXPECT_EQ(testing::task_status(done, "worker")->succeeded, 2);
  const auto freed = hub.next_as<protocol::UsageReport>(1);
  EXPECT_TRUE(freed.accounted_dispatches.empty());
  EXPECT_EQ(testing::allocated_gpus(freed), 0);

  hub.send(identity, "this is not msgpack");
  const auto garbage = hub.next_as<protocol::ErrorReply>(1);
  EXPECT_EQ(garbage.code, "bad_frame");

  hub.send(identity, protocol::encode_frame(protocol::MessageType::kDispatch, 77, "\xc1"));
  const testing::Received bad_payload = hub.next(1);
  EXPECT_EQ(bad_payload.type, protocol::MessageType::kErrorReply);
  EXPECT_EQ(bad_payload.seq, 77u);  // the answer names the frame it refuses
  EXPECT_EQ(testing::decode_as<protocol::ErrorReply>(bad_payload).code, "bad_payload");

  // Still serving: the next dispatch is answered.
  hub.send(identity, protocol::encode(make_dispatch(2, "too-big", {{"worker", 1, 64}})));
  const auto reject = hub.next_as<protocol::Reject>(1);
  EXPECT_EQ(reject.dispatch_id, 2u);
  EXPECT_NE(reject.reason.find("nvidia.com/gpu"), std::string::npos) << reject.reason;
}

TEST(AgentSocket, ReRegistersAfterAHubRestartAndAfterNotRegistered) {
  FakeHub hub;
  AgentThread agent(hub.endpoint(), quiet_timing());
  const std::string identity = register_agent(hub, 1);
  hub.send(identity, protocol::encode(make_dispatch(5, "long", {{"worker", 1, 1}}, 0,
                                                    {{"gantry.io/sim-duration", "100000"}})));
  EXPECT_EQ(hub.next_as<protocol::Admit>(1).dispatch_id, 5u);
  EXPECT_EQ(hub.next_as<protocol::StatusUpdate>(1).phase, "Running");
  EXPECT_EQ(hub.next_as<protocol::UsageReport>(1).accounted_dispatches,
            (std::vector<std::uint64_t>{5}));

  // A heartbeat from another epoch: the hub restarted under the agent.
  hub.send(identity, protocol::encode(protocol::Heartbeat{"test", 2}));
  protocol::Hello hello;
  register_agent(hub, 2, &hello);
  ASSERT_EQ(hello.running.size(), 1u);
  EXPECT_EQ(hello.running[0].dispatch_id, 5u);
  EXPECT_EQ(hello.running[0].job, "long");

  hub.send(identity, protocol::encode(protocol::ErrorReply{"not_registered", "who are you"}));
  register_agent(hub, 2, &hello);
  ASSERT_EQ(hello.running.size(), 1u);
  EXPECT_EQ(hello.running[0].dispatch_id, 5u);
  EXPECT_EQ(hello.running[0].job, "long");
}

TEST(AgentSocket, HeartbeatsAtTheIntervalTheHubAsksFor) {
  FakeHub hub;
  AgentThread agent(hub.endpoint(), quiet_timing());
  const testing::Received hello = hub.next(1);
  ASSERT_EQ(hello.type, protocol::MessageType::kHello);
  // 20 ms heartbeats, but a liveness no test outlasts.
  hub.send(hello.identity, protocol::encode(protocol::Welcome{1, 20, 100000}));
  EXPECT_EQ(hub.next_as<protocol::UsageReport>(1).cluster, "test");
  const std::optional<testing::Received> beat = hub.receive();
  ASSERT_TRUE(beat.has_value());
  ASSERT_EQ(beat->type, protocol::MessageType::kHeartbeat);
  const auto heartbeat = testing::decode_as<protocol::Heartbeat>(*beat);
  EXPECT_EQ(heartbeat.cluster, "test");
  EXPECT_EQ(heartbeat.hub_epoch, 1u);
}

TEST(AgentSocket, ReconnectsWithHelloWhenTheHubFallsSilent) {
  FakeHub hub;
  AgentThread agent(hub.endpoint(), quiet_timing());
  const testing::Received hello = hub.next(1);
  ASSERT_EQ(hello.type, protocol::MessageType::kHello);
  hub.send(hello.identity, protocol::encode(protocol::Welcome{1, 20, 2}));
  EXPECT_EQ(hub.next_as<protocol::UsageReport>(1).cluster, "test");

  // The hub answers nothing from now on: after 2 x 20 ms of silence the agent
  // gives up on the session and says Hello again on a fresh socket.
  while (true) {
    const std::optional<testing::Received> received = hub.receive();
    ASSERT_TRUE(received.has_value()) << "the agent never reconnected";
    if (received->type == protocol::MessageType::kHeartbeat) continue;
    EXPECT_EQ(received->type, protocol::MessageType::kHello);
    break;
  }
}

}  // namespace
}  // namespace gantry::agents
