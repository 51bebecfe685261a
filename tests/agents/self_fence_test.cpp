// Self-fencing (protocol/lease_timing.hpp): the agent counts as confirmed
// only what the hub answered, as of when it was sent, and a fenced core stops
// every run, which ends Failed saying why.
#include <gtest/gtest.h>

#include <initializer_list>

#include "agent_test_support.hpp"
#include "agents/agent_core.hpp"
#include "agents/hub_session.hpp"
#include "protocol/lease_timing.hpp"

namespace gantry::agents {
namespace {

using testing::make_prepare;
using testing::messages_of;
using testing::prepare_and_commit;

HubSession welcomed_session() {
  HubSession session(SessionTiming{}, 1000);
  session.connected(1000);  // the Hello leaves at 1000
  session.welcomed(protocol::Welcome{7, 200, 5}, 1300);
  return session;
}

TEST(SelfFence, TheWelcomeConfirmsTheHelloAsOfItsSendingAndTellsTheLease) {
  HubSession session(SessionTiming{}, 1000);
  EXPECT_FALSE(session.confirmed_contact().has_value());
  session = welcomed_session();
  EXPECT_EQ(session.confirmed_contact(), 1000);
  EXPECT_EQ(session.fence_after_ms(), 1000);  // 200 ms x 5
}

TEST(SelfFence, AnEchoConfirmsItsHeartbeatAsOfItsSendingNotItsArrival) {
  HubSession session = welcomed_session();
  session.heartbeat_sent(1500, 11);
  session.heartbeat_sent(1700, 12);
  session.heard(2600);  // frames from the hub prove nothing about what it heard
  EXPECT_EQ(session.confirmed_contact(), 1000);
  session.echoed(11);
  EXPECT_EQ(session.confirmed_contact(), 1500);
  session.echoed(12);
  EXPECT_EQ(session.confirmed_contact(), 1700);
  session.echoed(99);  // no heartbeat of ours: confirms nothing
  EXPECT_EQ(session.confirmed_contact(), 1700);
}

TEST(SelfFence, EchoesOfAnEarlierConnectionConfirmNothing) {
  HubSession session = welcomed_session();
  session.heartbeat_sent(1500, 11);
  session.lost(1600);
  session.connected(1600);
  session.echoed(11);
  EXPECT_EQ(session.confirmed_contact(), 1000);
}

// A core on the small inventory running `prepare`s, committed, with nothing
// said yet about them.
struct SelfFenceRuns : ::testing::Test {
  void run(std::initializer_list<protocol::Prepare> prepares) {
    for (const protocol::Prepare& prepare : prepares) prepare_and_commit(core, prepare, 0, out);
    out.messages.clear();
  }

  testing::FakeExecutor executor;
  AgentCore core{"test", testing::small_inventory(), executor};
  Outbox out;
};

// The event tells the hub it was an eviction, so that the job runs again.
TEST_F(SelfFenceRuns, AFencedCoreStopsEveryRunWhichEndsFailedSayingWhyAsAnEviction) {
  run({make_prepare(1, "a", {{"w", 2}}), make_prepare(2, "b", {{"w", 1}})});

  core.fence("fenced: no confirmed contact", out);
  EXPECT_EQ(executor.killed.size(), 3u);
  core.on_exits(
      {{ReplicaKey{1, 0}, 137, 9}, {ReplicaKey{1, 1}, 137, 9}, {ReplicaKey{2, 0}, 137, 9}}, out);
  const auto updates = messages_of<protocol::StatusUpdate>(out);
  ASSERT_EQ(updates.size(), 2u);
  for (const protocol::StatusUpdate& update : updates) {
    EXPECT_EQ(update.phase, "Failed");
    EXPECT_EQ(update.message, "fenced: no confirmed contact");
    EXPECT_EQ(update.event, protocol::policy_event::kPodEvicted);
    EXPECT_TRUE(update.task.empty());
  }
  EXPECT_EQ(core.running_count(), 0u);
}

// A supervisor fences its replica itself (the agent may be hung or dead):
// the part ends as an eviction too, and its other replicas are stopped.
TEST_F(SelfFenceRuns, AReplicaItsSupervisorFencedEndsThePartAsAnEviction) {
  run({make_prepare(1, "a", {{"w", 2}})});

  ReplicaExit fenced{ReplicaKey{1, 0}, 143, 15};
  fenced.fenced = true;
  core.on_exits({fenced}, out);
  ASSERT_EQ(executor.killed.size(), 1u) << "the other replica is stopped";
  core.on_exits({{ReplicaKey{1, 1}, 137, 9}}, out);
  const auto updates = messages_of<protocol::StatusUpdate>(out);
  ASSERT_FALSE(updates.empty());
  EXPECT_EQ(updates.back().phase, "Failed");
  EXPECT_EQ(updates.back().event, protocol::policy_event::kPodEvicted);
  EXPECT_EQ(updates.back().message.rfind("fenced: the supervisor of w-0 stopped it", 0), 0u)
      << updates.back().message;
  EXPECT_EQ(core.running_count(), 0u);
}

// An ordinary failure still names its replica, for PodFailed policies.
TEST_F(SelfFenceRuns, AnOrdinaryFailureIsNoEviction) {
  run({make_prepare(1, "a", {{"w", 1}})});
  core.on_exits({{ReplicaKey{1, 0}, 3, 0}}, out);
  const auto updates = messages_of<protocol::StatusUpdate>(out);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].event, protocol::policy_event::kPodFailed);
  EXPECT_EQ(updates[0].task, "w");
}

TEST(SelfFence, TheFenceAndItsKillMarginEndBeforeTheLostGraceAndNeverBeforeTheLease) {
  using std::chrono::milliseconds;
  for (const milliseconds lost_grace :
       {milliseconds{1000}, milliseconds{4500}, milliseconds{120'000}, milliseconds{3'600'000}}) {
    const milliseconds fence = protocol::fence_timeout(lost_grace);
    EXPECT_LE(fence + protocol::fence_kill_margin(fence), lost_grace) << lost_grace.count();
    // The supervisor's check and SIGTERM grace fit in the margin.
    EXPECT_LT(protocol::fence_check_period(fence) + protocol::fence_term_grace(fence),
              protocol::fence_kill_margin(fence));
  }
  EXPECT_EQ(protocol::fence_timeout(milliseconds{120'000}), milliseconds{105'000});
  EXPECT_EQ(protocol::fence_in_heartbeats(milliseconds{120'000}, milliseconds{1000}), 105);
  EXPECT_EQ(protocol::fence_in_heartbeats(milliseconds{1000}, milliseconds{1000}), 1);
  // A lease the fence cannot follow within the lost grace is refused.
  EXPECT_EQ(protocol::why_fence_unsafe(milliseconds{30'000}, milliseconds{120'000}), "");
  EXPECT_NE(protocol::why_fence_unsafe(milliseconds{30'000}, milliseconds{40'000}), "");
  for (const milliseconds lease : {milliseconds{600}, milliseconds{3000}, milliseconds{30'000}}) {
    const milliseconds lost_grace = lease + protocol::fence_kill_margin(lease);
    EXPECT_EQ(protocol::why_fence_unsafe(lease, lost_grace), "");
    EXPECT_GE(protocol::fence_timeout(lost_grace), lease) << lease.count();
  }
}

}  // namespace
}  // namespace gantry::agents
