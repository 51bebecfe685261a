// The agent's event loop against a hub played by the test over real ZeroMQ
// sockets on loopback: registration, a part prepared, committed and run to
// completion, a hold that runs out, a part stopped at its time limit, garbage
// frames, the session surviving hub restarts and silence, and each --test-fault.
#include <gtest/gtest.h>
#include <unistd.h>

#include <optional>
#include <regex>
#include <set>
#include <thread>

#include "agent_test_support.hpp"
#include "agents/agent_loop.hpp"
#include "agents/sim_executor.hpp"
#include "fake_hub.hpp"

namespace gantry::agents {
namespace {

using testing::commit_for;
using testing::FakeHub;
using testing::make_prepare;

constexpr std::int32_t kQuietMs = 600'000;  // no heartbeats or silence during a test

// The agent loop on its own thread, stopped through its stop fd.
class AgentThread {
 public:
  AgentThread(const std::string& endpoint, SessionTiming timing, TestFaults faults = {},
              AgentCoreOptions options = {},
              std::optional<support::CurveClientKeys> hub_keys = std::nullopt)
      : core_("test", testing::small_inventory(), executor_, std::move(options)),
        loop_(LoopConfig{endpoint, timing, faults, nullptr, std::move(hub_keys)}, core_,
              executor_) {
    if (::pipe(stop_) != 0) throw std::runtime_error("pipe");
    thread_ = std::thread([this] {
      try {
        status_ = loop_.run(stop_[0]);
      } catch (const std::exception& e) {
        error_ = e.what();
      }
    });
  }
  ~AgentThread() {
    join();
    ::close(stop_[0]);
    ::close(stop_[1]);
    EXPECT_EQ(error_, "");
  }

  // Stops the loop (if it has not stopped by itself) and returns its status.
  int join() {
    if (thread_.joinable()) {
      [[maybe_unused]] const ssize_t written = ::write(stop_[1], "x", 1);
      thread_.join();
    }
    return status_;
  }
  // Valid after join().
  std::uint64_t frames_sent() const { return loop_.frames_sent(); }

 private:
  SimExecutor executor_;
  AgentCore core_;
  AgentLoop loop_;
  int stop_[2] = {-1, -1};
  std::thread thread_;
  int status_ = -1;
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

TEST(AgentSocket, RegistersRunsAPartToCompletionAndSurvivesGarbage) {
  FakeHub hub;
  AgentThread agent(hub.endpoint(), quiet_timing());
  const std::string identity = register_agent(hub, 1);
  EXPECT_TRUE(std::regex_match(identity, std::regex("agent/test/[0-9a-f]{16}"))) << identity;

  hub.send(identity, protocol::encode(make_prepare(1, "quick", {{"worker", 2, 1}}, 0,
                                                   {{"gantry.io/sim-duration", "0.01"}})));
  const auto admit = hub.next_as<protocol::Admit>(1);
  EXPECT_EQ(admit.dispatch_id, 1u);
  EXPECT_EQ(admit.rendezvous_host, "127.0.0.1");
  const auto held = hub.next_as<protocol::UsageReport>(1);
  EXPECT_EQ(held.accounted_dispatches, (std::vector<std::uint64_t>{1}));
  EXPECT_EQ(testing::allocated_gpus(held), 2);

  hub.send(identity, protocol::encode(commit_for(admit)));
  EXPECT_EQ(hub.next_as<protocol::StatusUpdate>(1).phase, "Running");
  const auto done = hub.next_as<protocol::StatusUpdate>(1);
  EXPECT_EQ(done.phase, "Completed");
  EXPECT_EQ(testing::task_status(done, "worker")->succeeded, 2);
  const auto freed = hub.next_as<protocol::UsageReport>(1);
  EXPECT_TRUE(freed.accounted_dispatches.empty());
  EXPECT_EQ(testing::allocated_gpus(freed), 0);

  hub.send(identity, "this is not msgpack");
  const auto garbage = hub.next_as<protocol::ErrorReply>(1);
  EXPECT_EQ(garbage.code, "bad_frame");

  hub.send(identity, protocol::encode_frame(protocol::MessageType::kPrepare, 77, "\xc1"));
  const testing::Received bad_payload = hub.next(1);
  EXPECT_EQ(bad_payload.type, protocol::MessageType::kErrorReply);
  EXPECT_EQ(bad_payload.seq, 77u);  // the answer names the frame it refuses
  EXPECT_EQ(testing::decode_as<protocol::ErrorReply>(bad_payload).code, "bad_payload");

  // Still serving: the next Prepare is answered.
  hub.send(identity, protocol::encode(make_prepare(2, "too-big", {{"worker", 1, 64}})));
  const auto reject = hub.next_as<protocol::Reject>(1);
  EXPECT_EQ(reject.dispatch_id, 2u);
  EXPECT_NE(reject.reason.find("nvidia.com/gpu"), std::string::npos) << reject.reason;
}

// A hub that refuses the agent's key (not yet in its access.yaml): libzmq
// gives that connection up for good, so the agent starts a fresh one after its
// backoff rather than waiting out the hub's silence (here 30 minutes), and
// gets in once the hub allows the key.
TEST(AgentSocket, AfterTheHubRefusesItsKeyTheAgentRetriesAndGetsInOnceAllowed) {
  const support::CurveKeyPair hub_keys = support::generate_curve_keypair("hub");
  const support::CurveKeyPair agent_keys = support::generate_curve_keypair("test-agent");
  FakeHub hub(hub_keys, std::set<std::string>{});
  AgentThread agent(hub.endpoint(), quiet_timing(), {}, {},
                    support::CurveClientKeys{hub_keys.public_key, agent_keys});
  ASSERT_TRUE(hub.await_refusals(2)) << "the agent did not try again after a refusal";
  hub.allow(agent_keys.public_key);
  register_agent(hub, 1);
}

TEST(AgentSocket, ReRegistersAfterAHubRestartAndAfterNotRegistered) {
  FakeHub hub;
  AgentThread agent(hub.endpoint(), quiet_timing());
  const std::string identity = register_agent(hub, 1);
  hub.send(identity, protocol::encode(make_prepare(5, "long", {{"worker", 1, 1}}, 0,
                                                   {{"gantry.io/sim-duration", "100000"}})));
  const auto admit = hub.next_as<protocol::Admit>(1);
  EXPECT_EQ(admit.dispatch_id, 5u);
  EXPECT_EQ(hub.next_as<protocol::UsageReport>(1).accounted_dispatches,
            (std::vector<std::uint64_t>{5}));
  hub.send(identity, protocol::encode(commit_for(admit)));
  EXPECT_EQ(hub.next_as<protocol::StatusUpdate>(1).phase, "Running");
  // A second part is only prepared when the hub goes away.
  hub.send(identity, protocol::encode(make_prepare(6, "waiting", {{"worker", 1, 1}})));
  EXPECT_EQ(hub.next_as<protocol::Admit>(1).dispatch_id, 6u);
  EXPECT_EQ(hub.next_as<protocol::UsageReport>(1).accounted_dispatches,
            (std::vector<std::uint64_t>{5, 6}));

  const auto expect_both = [](const protocol::Hello& hello) {
    ASSERT_EQ(hello.running.size(), 2u);
    EXPECT_EQ(hello.running[0].dispatch_id, 5u);
    EXPECT_EQ(hello.running[0].job, "long");
    EXPECT_TRUE(hello.running[0].committed);
    EXPECT_EQ(hello.running[1].dispatch_id, 6u);
    EXPECT_EQ(hello.running[1].job, "waiting");
    EXPECT_FALSE(hello.running[1].committed);
  };
  // A heartbeat from another epoch: the hub restarted under the agent.
  hub.send(identity, protocol::encode(protocol::Heartbeat{"test", 2}));
  protocol::Hello hello;
  // Each connection has a routing id of its own.
  const std::string reconnected = register_agent(hub, 2, &hello);
  EXPECT_NE(reconnected, identity);
  expect_both(hello);

  hub.send(reconnected, protocol::encode(protocol::ErrorReply{"not_registered", "who are you"}));
  register_agent(hub, 2, &hello);
  expect_both(hello);
}

// The loop wakes for the end of a hold by itself: with no Commit the part is
// released and a usage report says so; a Commit after that is refused.
TEST(AgentSocket, APartNotCommittedInTimeIsReleased) {
  FakeHub hub;
  AgentCoreOptions options;
  options.prepare_hold_ms = 50;
  AgentThread agent(hub.endpoint(), quiet_timing(), {}, options);
  const std::string identity = register_agent(hub, 1);
  hub.send(identity, protocol::encode(make_prepare(3, "stalled", {{"worker", 1, 2}})));
  const auto admit = hub.next_as<protocol::Admit>(1);
  EXPECT_EQ(hub.next_as<protocol::UsageReport>(1).accounted_dispatches,
            (std::vector<std::uint64_t>{3}));

  const auto released = hub.next_as<protocol::UsageReport>(1);
  EXPECT_TRUE(released.accounted_dispatches.empty());
  EXPECT_EQ(testing::allocated_gpus(released), 0);

  hub.send(identity, protocol::encode(commit_for(admit)));
  const auto reject = hub.next_as<protocol::Reject>(1);
  EXPECT_EQ(reject.dispatch_id, 3u);
  EXPECT_EQ(reject.reason, "dispatch 3: prepared part expired before its commit");
}

// The loop wakes for a running part's time limit by itself: an hour-long
// simulated part with a 50 ms limit ends Failed and frees its GPUs.
TEST(AgentSocket, APartPastItsTimeLimitIsStoppedAndFails) {
  FakeHub hub;
  AgentThread agent(hub.endpoint(), quiet_timing());
  const std::string identity = register_agent(hub, 1);
  protocol::Prepare prepare =
      make_prepare(4, "overrun", {{"worker", 2, 1}}, 0, {{"gantry.io/sim-duration", "3600"}});
  prepare.time_limit_ms = 50;
  hub.send(identity, protocol::encode(prepare));
  const auto admit = hub.next_as<protocol::Admit>(1);
  EXPECT_EQ(testing::allocated_gpus(hub.next_as<protocol::UsageReport>(1)), 2);
  hub.send(identity, protocol::encode(commit_for(admit)));
  EXPECT_EQ(hub.next_as<protocol::StatusUpdate>(1).phase, "Running");

  const auto ended = hub.next_as<protocol::StatusUpdate>(1);
  EXPECT_EQ(ended.phase, "Failed");
  EXPECT_EQ(ended.message, "time limit (50ms)");
  EXPECT_EQ(testing::task_status(ended, "worker")->failed, 2);
  const auto freed = hub.next_as<protocol::UsageReport>(1);
  EXPECT_TRUE(freed.accounted_dispatches.empty());
  EXPECT_EQ(testing::allocated_gpus(freed), 0);
}

// Prepares 1 and 2 are lost: the first answer is Prepare 3's (the socket keeps
// the order, so an answer to either would have come first).
TEST(AgentSocket, TestFaultDropPreparesLosesTheFirstN) {
  FakeHub hub;
  TestFaults faults;
  faults.drop_prepares = 2;
  AgentThread agent(hub.endpoint(), quiet_timing(), faults);
  const std::string identity = register_agent(hub, 1);
  for (std::uint64_t id = 1; id <= 3; ++id) {
    hub.send(identity, protocol::encode(make_prepare(id, "j" + std::to_string(id), {{"w", 1}})));
  }
  EXPECT_EQ(hub.next_as<protocol::Admit>(1).dispatch_id, 3u);
  EXPECT_EQ(hub.next_as<protocol::UsageReport>(1).accounted_dispatches,
            (std::vector<std::uint64_t>{3}));
  // A retry of a lost one is answered now.
  hub.send(identity, protocol::encode(make_prepare(1, "j1", {{"w", 1}})));
  EXPECT_EQ(hub.next_as<protocol::Admit>(1).dispatch_id, 1u);
}

// Every Prepare is refused, and nothing is held: no usage report comes
// between the Reject and the answer to the next frame.
TEST(AgentSocket, TestFaultRejectPreparesRefusesEveryPrepare) {
  FakeHub hub;
  TestFaults faults;
  faults.reject_prepares = true;
  AgentThread agent(hub.endpoint(), quiet_timing(), faults);
  const std::string identity = register_agent(hub, 1);
  for (std::uint64_t id = 1; id <= 2; ++id) {
    protocol::Prepare prepare = make_prepare(id, "small", {{"w", 1}});
    prepare.part = 1;
    prepare.parts = 2;
    hub.send(identity, protocol::encode(prepare));
    const auto reject = hub.next_as<protocol::Reject>(1);
    EXPECT_EQ(reject.dispatch_id, id);
    EXPECT_EQ(reject.part, 1);
    EXPECT_EQ(reject.reason, "refused by --test-fault reject-prepares");
  }
  hub.send(identity, "not msgpack");
  EXPECT_EQ(hub.next_as<protocol::ErrorReply>(1).code, "bad_frame");
}

// The loop stops by itself right after the Admit, before the usage report
// that would follow it: the three frames the hub got are all it sent.
TEST(AgentSocket, TestFaultExitAfterAdmitStopsRightAfterTheAdmit) {
  FakeHub hub;
  TestFaults faults;
  faults.exit_after_admit = true;
  AgentThread agent(hub.endpoint(), quiet_timing(), faults);
  const std::string identity = register_agent(hub, 1);  // Hello, UsageReport
  hub.send(identity, protocol::encode(make_prepare(4, "doomed", {{"w", 1, 1}})));
  EXPECT_EQ(hub.next_as<protocol::Admit>(1).dispatch_id, 4u);
  EXPECT_EQ(agent.join(), kExitAfterAdmitStatus);
  EXPECT_EQ(agent.frames_sent(), 3u);
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

// An asymmetric cut: the hub's frames still arrive (its heartbeats keep the
// session alive), but none echoes the agent's own heartbeats, so the hub may
// not be hearing the agent. Past the fence timeout the Welcome gave (20 ms x 10), the
// agent stops its runs itself and reports them Failed, fenced.
TEST(AgentSocket, AnAgentWhoseHeartbeatsGoUnansweredFencesItsRunsPastTheFenceTimeout) {
  FakeHub hub;
  AgentThread agent(hub.endpoint(), quiet_timing());
  const testing::Received hello = hub.next(1);
  ASSERT_EQ(hello.type, protocol::MessageType::kHello);
  hub.send(hello.identity, protocol::encode(protocol::Welcome{1, 20, 10}));
  EXPECT_EQ(hub.next_as<protocol::UsageReport>(1).cluster, "test");
  hub.send(hello.identity, protocol::encode(make_prepare(5, "cut-off", {{"worker", 1, 1}}, 0,
                                                         {{"gantry.io/sim-duration", "3600"}})));
  hub.send(hello.identity, protocol::encode(commit_for(hub.next_as<protocol::Admit>(1))));

  // FakeHub::next answers each heartbeat with a heartbeat of seq 0: heard,
  // but no echo of what the agent sent.
  std::optional<protocol::StatusUpdate> ended;
  while (!ended) {
    const testing::Received received = hub.next(1);
    if (received.type != protocol::MessageType::kStatusUpdate) continue;
    const auto update = testing::decode_as<protocol::StatusUpdate>(received);
    if (update.phase != "Running") ended = update;
  }
  EXPECT_EQ(ended->phase, "Failed");
  EXPECT_EQ(ended->message.rfind("fenced: no confirmed contact with the hub for ", 0), 0u)
      << ended->message;
  EXPECT_EQ(ended->event, protocol::policy_event::kPodEvicted);
}

}  // namespace
}  // namespace gantry::agents
