#include "actors/agent_sessions.hpp"

#include <gtest/gtest.h>

#include "actors/dispatch_tracker.hpp"

namespace gantry::actors {
namespace {

TEST(AgentSessionsTest, ExpiresExactlyWhenSilentForTheExpiry) {
  AgentSessions sessions(3000);
  sessions.open("p", "east", 1000);
  EXPECT_TRUE(sessions.expire(3999).empty());
  ASSERT_NE(sessions.touch("p", 2000), nullptr);
  EXPECT_TRUE(sessions.expire(4999).empty());
  const auto expired = sessions.expire(5000);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].cluster, "east");
  EXPECT_EQ(sessions.touch("p", 5001), nullptr);
}

TEST(AgentSessionsTest, NewPeerForAClusterReplacesTheOldOne) {
  AgentSessions sessions(3000);
  sessions.open("old", "east", 0);
  EXPECT_EQ(sessions.open("new", "east", 10), "old");
  EXPECT_EQ(sessions.touch("old", 20), nullptr);
  ASSERT_NE(sessions.touch("new", 20), nullptr);
  EXPECT_EQ(sessions.size(), 1u);
  EXPECT_EQ(sessions.last_seen().at("east"), 20);
}

TEST(DispatchTrackerTest, OverdueDispatchesAreReturnedOnce) {
  DispatchTracker tracker;
  tracker.sent({1, "east", "a", "p", 100});
  tracker.sent({2, "east", "b", "p", 200});
  EXPECT_TRUE(tracker.answered(2));
  EXPECT_FALSE(tracker.answered(2));
  EXPECT_TRUE(tracker.overdue(99).empty());
  const auto late = tracker.overdue(100);
  ASSERT_EQ(late.size(), 1u);
  EXPECT_EQ(late[0].job, "a");
  EXPECT_TRUE(tracker.overdue(1000).empty());
}

}  // namespace
}  // namespace gantry::actors
