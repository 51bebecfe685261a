// support/web_sessions.hpp with the clock in the test's hand: a ticket opens
// one session once and only within its minute, sessions end at their time or
// on logout, and both are bounded with errors that name the limit.
#include "support/web_sessions.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace gantry::support {
namespace {

constexpr std::int64_t kNow = 1'714'550'400'000;
const WebIdentity kAlice{"alice", "alice-public-key"};

TEST(WebSessions, ATicketOpensOneSessionForItsKeyOnce) {
  WebSessions sessions;
  const WebTicket ticket = sessions.issue_ticket(kAlice, kNow);
  ASSERT_EQ(ticket.refusal, "");
  EXPECT_EQ(ticket.ticket.size(), 64u);  // 256 bits, hex
  EXPECT_EQ(ticket.expires_ms, kNow + 60'000);
  const WebLogin login = sessions.redeem(ticket.ticket, kNow + 1'000);
  ASSERT_TRUE(login.session) << login.refusal;
  EXPECT_EQ(login.session->who.key, "alice");
  EXPECT_EQ(login.session->who.public_key, "alice-public-key");
  EXPECT_EQ(login.session->expires_ms, kNow + 1'000 + 12 * 3'600'000);
  EXPECT_NE(login.session->id, ticket.ticket);

  const WebLogin again = sessions.redeem(ticket.ticket, kNow + 2'000);
  EXPECT_FALSE(again.session);
  EXPECT_NE(again.refusal.find("unknown, used or expired"), std::string::npos) << again.refusal;
  EXPECT_NE(again.refusal.find("gantryctl web"), std::string::npos) << again.refusal;

  const auto seen = sessions.session(login.session->id, kNow + 3'000);
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->who.key, "alice");
  EXPECT_EQ(seen->id, "") << "only redeem() hands out the id";
  EXPECT_FALSE(sessions.session(ticket.ticket, kNow + 3'000)) << "a ticket is no session";
  EXPECT_FALSE(sessions.session("", kNow + 3'000));
}

TEST(WebSessions, ATicketWorksOnlyWithinItsMinute) {
  WebSessions sessions;
  const WebTicket late = sessions.issue_ticket(kAlice, kNow);
  EXPECT_FALSE(sessions.redeem(late.ticket, kNow + 60'000).session);
  const WebTicket in_time = sessions.issue_ticket(kAlice, kNow);
  EXPECT_TRUE(sessions.redeem(in_time.ticket, kNow + 59'999).session);
}

TEST(WebSessions, ASessionEndsAtItsTimeOrWhenLoggedOut) {
  WebSessions sessions(WebSessionLimits{std::chrono::minutes(1), std::chrono::hours(1), 64, 1024});
  const std::string first =
      sessions.redeem(sessions.issue_ticket(kAlice, kNow).ticket, kNow).session->id;
  const std::string second =
      sessions.redeem(sessions.issue_ticket(kAlice, kNow).ticket, kNow).session->id;
  EXPECT_NE(first, second);
  EXPECT_EQ(sessions.live_sessions(kNow), 2u);
  sessions.end(first);
  EXPECT_FALSE(sessions.session(first, kNow + 1));
  EXPECT_TRUE(sessions.session(second, kNow + 3'599'999));
  EXPECT_FALSE(sessions.session(second, kNow + 3'600'000));
  EXPECT_EQ(sessions.live_sessions(kNow + 3'600'000), 0u);
  sessions.end("no such session");
}

TEST(WebSessions, WaitingTicketsAndLiveSessionsAreBoundedNamingTheLimit) {
  WebSessions sessions(WebSessionLimits{std::chrono::minutes(1), std::chrono::hours(12), 2, 1});
  const WebTicket a = sessions.issue_ticket(kAlice, kNow);
  const WebTicket b = sessions.issue_ticket(kAlice, kNow);
  const WebTicket c = sessions.issue_ticket(kAlice, kNow);
  EXPECT_EQ(c.ticket, "");
  EXPECT_NE(c.refusal.find("at most 2"), std::string::npos) << c.refusal;
  // Expired tickets make room.
  EXPECT_EQ(sessions.issue_ticket(kAlice, kNow + 60'000).refusal, "");

  WebSessions one(WebSessionLimits{std::chrono::minutes(1), std::chrono::hours(12), 4, 1});
  const WebTicket first = one.issue_ticket(kAlice, kNow);
  const WebTicket second = one.issue_ticket(kAlice, kNow);
  ASSERT_TRUE(one.redeem(first.ticket, kNow).session);
  const WebLogin refused = one.redeem(second.ticket, kNow);
  EXPECT_FALSE(refused.session);
  EXPECT_NE(refused.refusal.find("at most 1"), std::string::npos) << refused.refusal;
  EXPECT_FALSE(one.redeem(second.ticket, kNow).session) << "a refused ticket is used up too";
}

TEST(WebSessions, TicketsAndSessionIdsDoNotRepeat) {
  WebSessions sessions(WebSessionLimits{std::chrono::minutes(1), std::chrono::hours(12), 64, 64});
  std::set<std::string> seen;
  for (int i = 0; i < 32; ++i) {
    const WebTicket ticket = sessions.issue_ticket(kAlice, kNow);
    EXPECT_TRUE(seen.insert(ticket.ticket).second);
    EXPECT_TRUE(seen.insert(sessions.redeem(ticket.ticket, kNow).session->id).second);
  }
}

}  // namespace
}  // namespace gantry::support
