// The registry's sessions and the dispatcher's tracker are plain C++: time is
// whatever the test says it is.
#include "actors/agent_sessions.hpp"

#include <gtest/gtest.h>

#include "actors/dispatch_tracker.hpp"

namespace gantry::actors {
namespace {

std::vector<std::string> clusters(const std::vector<AgentSessions::Session>& sessions) {
  std::vector<std::string> names;
  for (const AgentSessions::Session& session : sessions) names.push_back(session.cluster);
  return names;
}

TEST(AgentSessionsTest, SilentPastTheLeaseThenLostPastTheGraceFromTheLastFrame) {
  AgentSessions sessions(3000, 10'000);
  sessions.open("p", "east", 1000);
  EXPECT_TRUE(sessions.expire(3999).silent.empty());
  ASSERT_NE(sessions.touch("p", 2000).session, nullptr);
  EXPECT_TRUE(sessions.expire(4999).silent.empty());
  EXPECT_EQ(clusters(sessions.expire(5000).silent), std::vector<std::string>{"east"});
  EXPECT_TRUE(sessions.expire(6000).silent.empty()) << "reported once";
  EXPECT_TRUE(sessions.expire(11'999).lost.empty());
  const AgentSessions::Expired lost = sessions.expire(12'000);
  EXPECT_EQ(clusters(lost.lost), std::vector<std::string>{"east"});
  EXPECT_TRUE(lost.silent.empty());
  EXPECT_EQ(sessions.touch("p", 12'001).session, nullptr) << "a lost peer must say Hello again";
  EXPECT_EQ(sessions.size(), 0u);
}

TEST(AgentSessionsTest, AFrameWakesASilentSessionAndRestartsBothClocks) {
  AgentSessions sessions(3000, 10'000);
  sessions.open("p", "east", 0);
  ASSERT_EQ(sessions.expire(3000).silent.size(), 1u);
  const AgentSessions::Touched woken = sessions.touch("p", 9000);
  ASSERT_NE(woken.session, nullptr);
  EXPECT_TRUE(woken.woke);
  EXPECT_FALSE(sessions.touch("p", 9001).woke) << "awake already";
  EXPECT_TRUE(sessions.expire(11'000).lost.empty()) << "the grace counts from the last frame";
  EXPECT_EQ(sessions.expire(12'001).silent.size(), 1u) << "and so does the lease";
}

TEST(AgentSessionsTest, SilentAndLostSessionsAreReportedInClusterOrder) {
  AgentSessions sessions(1000, 2000);
  sessions.open("p3", "west", 0);
  sessions.open("p1", "north", 0);
  sessions.open("p2", "east", 500);
  sessions.open("p4", "south", 1500);
  const AgentSessions::Expired at_2000 = sessions.expire(2000);
  EXPECT_EQ(clusters(at_2000.lost), (std::vector<std::string>{"north", "west"}));
  EXPECT_EQ(clusters(at_2000.silent), std::vector<std::string>{"east"});
}

TEST(AgentSessionsTest, NewPeerForAClusterReplacesTheOldOne) {
  AgentSessions sessions(3000, 10'000);
  sessions.open("old", "east", 0);
  EXPECT_EQ(sessions.open("new", "east", 10), "old");
  EXPECT_EQ(sessions.touch("old", 20).session, nullptr);
  ASSERT_NE(sessions.touch("new", 20).session, nullptr);
  EXPECT_EQ(sessions.size(), 1u);
  EXPECT_EQ(sessions.last_seen().at("east"), 20);
}

TEST(AgentSessionsTest, TheKarmadaGatewayNeverTakesAClusterFromItsAgent) {
  AgentSessions sessions(3000, 10'000);
  sessions.open("karmada/east", "east", 0, /*karmada=*/true);
  EXPECT_EQ(sessions.agent_of("east"), "") << "only the gateway speaks for east";
  // The agent comes: it takes the cluster over, and from then on it is the agent's.
  EXPECT_EQ(sessions.open("agent/east", "east", 10), "karmada/east");
  EXPECT_EQ(sessions.agent_of("east"), "agent/east");
  EXPECT_EQ(sessions.agent_of("west"), "");
}

// ---- DispatchTracker

// A Prepare or Commit frame awaiting its answer.
DispatchTracker::Awaiting awaiting(DispatchTracker::Phase phase, hub::DispatchId id,
                                   const std::string& cluster, hub::TimeMs sent,
                                   hub::TimeMs deadline) {
  const bool is_prepare = phase == DispatchTracker::Phase::kPrepare;
  return {id,   cluster, "job-" + std::to_string(id),
          0,    phase,   is_prepare ? "prepare-frame" : "commit-frame",
          sent, deadline};
}
DispatchTracker::Awaiting prepare(hub::DispatchId id, const std::string& cluster, hub::TimeMs sent,
                                  hub::TimeMs deadline) {
  return awaiting(DispatchTracker::Phase::kPrepare, id, cluster, sent, deadline);
}
DispatchTracker::Awaiting commit(hub::DispatchId id, const std::string& cluster, hub::TimeMs sent,
                                 hub::TimeMs deadline) {
  return awaiting(DispatchTracker::Phase::kCommit, id, cluster, sent, deadline);
}

using Answer = DispatchTracker::Answer;

TEST(DispatchTrackerTest, APrepareIsAnsweredByAdmitOrRejectFromItsCluster) {
  DispatchTracker tracker(1000);
  tracker.sent(prepare(1, "east", 0, 10'000));
  tracker.sent(prepare(1, "west", 0, 10'000));  // another part of the same dispatch
  tracker.sent(prepare(2, "east", 0, 10'000));
  EXPECT_FALSE(tracker.answered(1, "east", Answer::kStatus))
      << "a status does not answer a prepare";
  EXPECT_FALSE(tracker.answered(1, "north", Answer::kAdmit)) << "not a part of it";
  EXPECT_TRUE(tracker.answered(1, "east", Answer::kAdmit));
  EXPECT_FALSE(tracker.answered(1, "east", Answer::kAdmit)) << "a duplicate";
  EXPECT_TRUE(tracker.awaiting(1, "west"));
  EXPECT_TRUE(tracker.answered(2, "east", Answer::kReject));
  EXPECT_EQ(tracker.size(), 1u);
}

TEST(DispatchTrackerTest, ACommitIsAnsweredByAnyStatusOrAReject) {
  DispatchTracker tracker(1000);
  tracker.sent(commit(1, "east", 0, 10'000));
  tracker.sent(commit(2, "east", 0, 10'000));
  EXPECT_FALSE(tracker.answered(1, "east", Answer::kAdmit))
      << "a late Admit does not confirm a commit";
  EXPECT_TRUE(tracker.answered(1, "east", Answer::kStatus));
  EXPECT_TRUE(tracker.answered(2, "east", Answer::kReject));
  EXPECT_EQ(tracker.size(), 0u);
}

TEST(DispatchTrackerTest, UnansweredFramesAreDueEveryIntervalUntilOverdue) {
  DispatchTracker tracker(1000);
  tracker.sent(prepare(1, "east", 0, 3000));
  tracker.sent(prepare(2, "east", 500, 3500));
  EXPECT_TRUE(tracker.due(999).empty());
  std::vector<const DispatchTracker::Awaiting*> due = tracker.due(1000);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0]->id, 1u);
  EXPECT_EQ(due[0]->frame, "prepare-frame") << "sent again as it was";
  EXPECT_EQ(tracker.due(1500).size(), 1u);  // dispatch 2, a full interval after it was sent
  EXPECT_TRUE(tracker.due(1999).empty());
  EXPECT_EQ(tracker.due(2000).size(), 1u);
  EXPECT_TRUE(tracker.overdue(2999).empty());
  const std::vector<DispatchTracker::Awaiting> late = tracker.overdue(3000);
  ASSERT_EQ(late.size(), 1u);
  EXPECT_EQ(late[0].id, 1u);
  EXPECT_EQ(late[0].job, "job-1");
  EXPECT_TRUE(tracker.overdue(3000).empty()) << "returned once";
  EXPECT_EQ(tracker.overdue(10'000).size(), 1u);
}

TEST(DispatchTrackerTest, AStoppedPartOrAForgottenAgentIsNoLongerAwaited) {
  DispatchTracker tracker(1000);
  tracker.set_peer("east", "agent/east");
  tracker.set_peer("west", "agent/west");
  tracker.sent(prepare(1, "east", 0, 3000));
  tracker.sent(prepare(1, "west", 0, 3000));
  tracker.sent(commit(2, "east", 0, 3000));
  tracker.forget(1, "west");
  EXPECT_FALSE(tracker.awaiting(1, "west"));
  ASSERT_NE(tracker.peer_of("east"), nullptr);
  EXPECT_EQ(*tracker.peer_of("east"), "agent/east");
  tracker.set_peer("east", "");
  EXPECT_EQ(tracker.peer_of("east"), nullptr);
  EXPECT_EQ(tracker.size(), 0u);
  EXPECT_TRUE(tracker.overdue(10'000).empty());
}

}  // namespace
}  // namespace gantry::actors
