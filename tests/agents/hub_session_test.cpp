// The hub session's timing decisions, driven by a fake clock.
#include "agents/hub_session.hpp"

#include <gtest/gtest.h>

namespace gantry::agents {
namespace {

using Action = HubSession::Action;

SessionTiming timing() {
  SessionTiming t;
  t.heartbeat_ms = 100;
  t.liveness = 3;
  t.initial_backoff_ms = 1000;
  t.max_backoff_ms = 4000;
  return t;
}

protocol::Welcome welcome(std::uint64_t epoch, std::int32_t interval = 200) {
  return protocol::Welcome{epoch, interval, 2};
}

TEST(HubSession, ConnectsAtOnceThenHeartbeatsAtTheHubsInterval) {
  HubSession session(timing(), 1000);
  EXPECT_EQ(session.due(1000), Action::kConnect);
  session.connected(1000);
  EXPECT_EQ(session.state(), HubSession::State::kConnecting);
  EXPECT_EQ(session.due(1100), Action::kNone);  // no heartbeats before Welcome

  EXPECT_FALSE(session.welcomed(welcome(42), 1050));
  EXPECT_TRUE(session.registered());
  EXPECT_EQ(session.heartbeat_ms(), 200);
  EXPECT_EQ(session.next_deadline(), 1250);
  EXPECT_EQ(session.due(1249), Action::kNone);
  EXPECT_EQ(session.due(1250), Action::kSendHeartbeat);
  session.heartbeat_sent(1250);
  EXPECT_EQ(session.due(1250), Action::kNone);
}

TEST(HubSession, SilenceForIntervalTimesLivenessMeansTheHubIsGone) {
  HubSession session(timing(), 0);
  session.connected(0);
  session.welcomed(welcome(1), 0);  // 200 ms x liveness 2
  session.heartbeat_sent(200);
  session.heard(250);
  EXPECT_EQ(session.due(649), Action::kSendHeartbeat);
  session.heartbeat_sent(649);
  EXPECT_EQ(session.due(649), Action::kNone);
  EXPECT_EQ(session.due(650), Action::kDisconnect);
}

// The hub's Welcome makes the session's silence limit its fence timeout
// (long); an agent with several hubs moves on after its own, short one.
TEST(HubSession, SilentForItsOwnLivenessWhateverTheHubsFenceTimeout) {
  HubSession session(timing(), 0);  // 100 ms x 3 of its own
  EXPECT_FALSE(session.silent_for_own_liveness(1000));  // not connected: nothing to judge
  session.connected(0);
  EXPECT_FALSE(session.silent_for_own_liveness(299));
  EXPECT_TRUE(session.silent_for_own_liveness(300));
  session.welcomed(protocol::Welcome{1, 200, 500}, 100);  // the hub's: 200 ms x 500
  session.heard(1000);
  EXPECT_FALSE(session.silent_for_own_liveness(1299));
  EXPECT_TRUE(session.silent_for_own_liveness(1300));
  EXPECT_NE(session.due(1300), Action::kDisconnect);  // the session itself is not over
}

TEST(HubSession, WelcomeThatNeverComesAlsoCountsAsSilence) {
  HubSession session(timing(), 0);
  session.connected(0);
  EXPECT_EQ(session.next_deadline(), 300);  // 100 ms x 3 before any Welcome
  EXPECT_EQ(session.due(299), Action::kNone);
  EXPECT_EQ(session.due(300), Action::kDisconnect);
}

TEST(HubSession, ReconnectIsImmediateOnceThenBacksOffDoublingToTheCap) {
  HubSession session(timing(), 0);
  session.connected(0);
  session.welcomed(welcome(1), 0);
  TimeMs now = 1000;
  session.lost(now);
  EXPECT_EQ(session.due(now), Action::kConnect);  // a working session ended: retry at once
  const TimeMs expected_waits[] = {1000, 2000, 4000, 4000};
  for (TimeMs wait : expected_waits) {
    session.connected(now);
    now += 400;  // the Welcome never comes (the hub said 200 ms x 2)
    ASSERT_EQ(session.due(now), Action::kDisconnect);
    session.lost(now);
    EXPECT_EQ(session.next_deadline(), now + wait);
    EXPECT_EQ(session.due(now + wait - 1), Action::kNone);
    now += wait;
    EXPECT_EQ(session.due(now), Action::kConnect);
  }
  session.connected(now);
  session.welcomed(welcome(1), now);
  session.lost(now);
  EXPECT_EQ(session.due(now), Action::kConnect);  // a Welcome resets the backoff
}

TEST(HubSession, ReportsANewHubEpoch) {
  HubSession session(timing(), 0);
  session.connected(0);
  EXPECT_FALSE(session.welcomed(welcome(7), 0));
  EXPECT_TRUE(session.epoch_matches(7));
  EXPECT_FALSE(session.epoch_matches(8));
  session.lost(10);
  session.connected(10);
  EXPECT_FALSE(session.welcomed(welcome(7), 20));  // same hub, new session
  session.lost(30);
  session.connected(30);
  EXPECT_TRUE(session.welcomed(welcome(8), 40));  // the hub restarted
}

}  // namespace
}  // namespace gantry::agents
