// Who may open the web view (actors/web_gate.hpp) and how gantryctl web's
// ticket is made (actors/web_login_desk.hpp), with the clock and the access
// list in the test's hand: a ticket logs one browser in once, for its key,
// as long as that key stays in the access list; a key taken out loses its
// session and its open streams; each login is an audit line.
#include "actors/web_gate.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "actors/web_login_desk.hpp"
#include "protocol/envelope.hpp"
#include "support/curve_keys.hpp"
#include "support/temp_dir.hpp"
#include "support/web_login.hpp"

namespace gantry::actors {
namespace {

constexpr std::int64_t kNow = 1'714'550'400'000;

std::string header(const support::HttpReply& reply, const std::string& name) {
  for (const auto& [field, value] : reply.headers) {
    if (field == name) return value;
  }
  return "";
}

support::HttpRequest request(std::string method, std::string path, std::string query = "",
                             std::string cookie = "") {
  support::HttpRequest made{std::move(method), std::move(path), "", ""};
  made.query = std::move(query);
  made.cookie = std::move(cookie);
  return made;
}

std::shared_ptr<const AccessList> access_list(const std::string& admins) {
  return std::make_shared<AccessList>(AccessList::parse("admins:\n" + admins, ".", "access.yaml"));
}

std::string admin_entry(const std::string& name, const std::string& public_key,
                        const std::string& role) {
  return "  - {name: " + name + ", public_key: \"" + public_key + "\", role: " + role + "}\n";
}

// A stream that records what it was sent and whether it was closed.
class RecordingStream : public support::HttpStream {
 public:
  bool send(std::string text) override {
    if (closed) return false;
    sent.push_back(std::move(text));
    return true;
  }
  void close() override { closed = true; }
  std::vector<std::string> sent;
  bool closed = false;
};

class WebGateTest : public ::testing::Test {
 protected:
  WebGateTest() {
    access_ = access_list(admin_entry("alice", alice_.public_key, "viewer") +
                          admin_entry("bob", bob_.public_key, "operator"));
  }

  WebGateOptions gate_options(bool insecure = false) {
    return WebGateOptions{
        insecure, false, sessions_, [this] { return access_; }, audit_, [this] { return now_; }};
  }
  WebLoginDesk desk(std::string base_url = "http://hub:7802", bool insecure = false) {
    return WebLoginDesk(WebLoginDeskOptions{std::move(base_url), insecure, sessions_,
                                            [this] { return access_; }, [this] { return now_; }},
                        unused_sink_);
  }
  // The ticket in a URL gantryctl web would print.
  static std::string ticket_of(const std::string& url) {
    return support::query_value(url.substr(url.find('?') + 1), "ticket");
  }
  // Logs `key` in: the session cookie's "gantry_session=ID".
  std::string log_in(const std::string& key) {
    const protocol::WebLoginReply reply = desk().reply_to(key, protocol::WebLoginRequest{});
    EXPECT_TRUE(reply.ok) << reply.error;
    const support::HttpReply login =
        gate_.route(request("GET", "/login", "ticket=" + ticket_of(reply.url)), false);
    EXPECT_EQ(login.status, 303) << login.body;
    const std::string cookie = header(login, "Set-Cookie");
    return cookie.substr(0, cookie.find(';'));
  }
  std::vector<nlohmann::json> audit_lines() {
    std::ifstream in(dir_.path() / "audit.log");
    std::vector<nlohmann::json> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
    return lines;
  }

  struct NoSink : OutboundSink {
    void send(OutboundFrame) override {}
    void send_batch(std::vector<OutboundFrame>) override {}
  } unused_sink_;
  support::TempDir dir_{"web-gate"};
  support::CurveKeyPair alice_ = support::generate_curve_keypair("alice");
  support::CurveKeyPair bob_ = support::generate_curve_keypair("bob");
  std::shared_ptr<const AccessList> access_;
  std::shared_ptr<AuditLog> audit_ = std::make_shared<AuditLog>(dir_.path() / "audit.log");
  std::shared_ptr<support::WebSessions> sessions_ = std::make_shared<support::WebSessions>();
  std::int64_t now_ = kNow;
  std::shared_ptr<RecordingStream> stream_ = std::make_shared<RecordingStream>();
  WebGate gate_{gate_options(), [](const support::HttpRequest& asked) {
                  return support::text_reply(200, "page " + asked.path);
                }};
};

TEST_F(WebGateTest, WithoutALoginEveryPageIsRefusedSayingHowToLogIn) {
  for (const char* path : {"/", "/app.js", "/api/overview", "/api/stream", "/api/session"}) {
    const support::HttpReply refused = gate_.route(request("GET", path), false);
    EXPECT_EQ(refused.status, 401) << path;
    EXPECT_NE(refused.body.find("gantryctl web"), std::string::npos) << refused.body;
  }
  EXPECT_EQ(gate_.route(request("GET", "/", "", "gantry_session=made-up"), false).status, 401);
}

TEST_F(WebGateTest, ATicketLogsOneBrowserInOnceForItsKeyAndLandsOnTheJobsPage) {
  const protocol::WebLoginReply reply =
      desk().reply_to("alice", protocol::WebLoginRequest{"train 1"});
  ASSERT_TRUE(reply.ok) << reply.error;
  EXPECT_EQ(reply.key, "alice");
  EXPECT_EQ(reply.valid_ms, 60'000);
  EXPECT_EQ(reply.url.rfind("http://hub:7802/login?ticket=", 0), 0u) << reply.url;
  EXPECT_NE(reply.url.find("&job=train%201"), std::string::npos) << reply.url;

  now_ += 5'000;
  const std::string query = reply.url.substr(reply.url.find('?') + 1);
  const support::HttpReply login = gate_.route(request("GET", "/login", query), false);
  ASSERT_EQ(login.status, 303) << login.body;
  EXPECT_EQ(header(login, "Location"), "/#/jobs/train%201");
  const std::string cookie = header(login, "Set-Cookie");
  EXPECT_EQ(cookie.rfind("gantry_session=", 0), 0u) << cookie;
  EXPECT_NE(cookie.find("; Path=/; Max-Age=43200; HttpOnly; SameSite=Strict"), std::string::npos)
      << cookie;
  EXPECT_EQ(cookie.find("Secure"), std::string::npos) << "plain HTTP";
  const std::string session = cookie.substr(0, cookie.find(';'));

  const support::HttpReply page = gate_.route(request("GET", "/", "", "a=1; " + session), false);
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.body, "page /\n");
  const auto who =
      nlohmann::json::parse(gate_.route(request("GET", "/api/session", "", session), false).body);
  EXPECT_EQ(who["via"], "login");
  EXPECT_EQ(who["key"], "alice");
  EXPECT_EQ(who["role"], "viewer");
  EXPECT_EQ(who["expires"], "2024-05-01T20:00:05.000Z");

  const support::HttpReply again = gate_.route(request("GET", "/login", query), false);
  EXPECT_EQ(again.status, 401);
  EXPECT_NE(again.body.find("used or expired"), std::string::npos) << again.body;

  const auto lines = audit_lines();
  ASSERT_EQ(lines.size(), 1u) << "the refused second use has no key to record";
  EXPECT_EQ(lines[0]["key"], "alice");
  EXPECT_EQ(lines[0]["role"], "viewer");
  EXPECT_EQ(lines[0]["action"], "login");
  EXPECT_EQ(lines[0]["kind"], "web");
  EXPECT_EQ(lines[0]["result"], "ok");
  EXPECT_EQ(lines[0]["message"], "a session until 2024-05-01T20:00:05.000Z");
  EXPECT_EQ(lines[0]["time"], "2024-05-01T08:00:05.000Z");
}

TEST_F(WebGateTest, ATicketOlderThanAMinuteIsRefused) {
  const protocol::WebLoginReply reply = desk().reply_to("bob", protocol::WebLoginRequest{});
  now_ += 60'000;
  EXPECT_EQ(gate_.route(request("GET", "/login", "ticket=" + ticket_of(reply.url)), false).status,
            401);
}

TEST_F(WebGateTest, AKeyTakenOutOfTheAccessListLosesItsSession) {
  const std::string alice = log_in("alice");
  const std::string bob = log_in("bob");
  access_ = access_list(admin_entry("bob", bob_.public_key, "operator"));  // SIGHUP without alice
  EXPECT_EQ(gate_.route(request("GET", "/", "", alice), false).status, 401);
  EXPECT_EQ(gate_.route(request("GET", "/", "", bob), false).status, 200);
}

TEST_F(WebGateTest, AnOpenStreamEndsAtItsNextWriteOnceItsKeyIsGone) {
  const std::string session = log_in("alice");
  std::shared_ptr<support::HttpStream> kept;
  WebGate gate(gate_options(), [&kept](const support::HttpRequest&) {
    support::HttpReply streamed;
    streamed.stream = [&kept](std::shared_ptr<support::HttpStream> stream) { kept = stream; };
    return streamed;
  });
  gate.route(request("GET", "/api/stream", "", session), false).stream(stream_);
  ASSERT_TRUE(kept);
  EXPECT_TRUE(kept->send("data: one\n\n"));
  access_ = access_list(admin_entry("bob", bob_.public_key, "operator"));
  EXPECT_FALSE(kept->send("data: two\n\n"));
  EXPECT_TRUE(stream_->closed);
  EXPECT_EQ(stream_->sent, std::vector<std::string>{"data: one\n\n"});
}

TEST_F(WebGateTest, ANewKeyUnderTheSameNameDoesNotInheritTheSessionsOfTheOld) {
  const std::string session = log_in("alice");
  const support::CurveKeyPair rotated = support::generate_curve_keypair("alice");
  access_ = access_list(admin_entry("alice", rotated.public_key, "viewer"));
  EXPECT_EQ(gate_.route(request("GET", "/", "", session), false).status, 401);
}

TEST_F(WebGateTest, AKeyRemovedBetweenTicketAndLoginIsRefusedAndAudited) {
  const protocol::WebLoginReply reply = desk().reply_to("alice", protocol::WebLoginRequest{});
  access_ = access_list(admin_entry("bob", bob_.public_key, "operator"));
  const support::HttpReply refused =
      gate_.route(request("GET", "/login", "ticket=" + ticket_of(reply.url)), false);
  EXPECT_EQ(refused.status, 403);
  EXPECT_NE(refused.body.find("alice"), std::string::npos) << refused.body;
  EXPECT_EQ(header(refused, "Set-Cookie"), "");
  const auto lines = audit_lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["key"], "alice");
  EXPECT_EQ(lines[0]["role"], "none");
  EXPECT_EQ(lines[0]["action"], "login");
  EXPECT_EQ(lines[0]["result"], "forbidden");
}

TEST_F(WebGateTest, LogoutEndsTheSessionAndClearsTheCookie) {
  const std::string session = log_in("bob");
  EXPECT_EQ(gate_.route(request("GET", "/logout", "", session), false).status, 405);
  const support::HttpReply out = gate_.route(request("POST", "/logout", "", session), false);
  EXPECT_EQ(out.status, 200);
  EXPECT_NE(header(out, "Set-Cookie").find("gantry_session=; Path=/; Max-Age=0"),
            std::string::npos);
  EXPECT_EQ(gate_.route(request("GET", "/", "", session), false).status, 401);
}

TEST_F(WebGateTest, TheScrapeTokenAndInsecureNeedNoLogin) {
  EXPECT_EQ(gate_.route(request("GET", "/api/overview"), true).body, "page /api/overview\n");
  EXPECT_EQ(nlohmann::json::parse(gate_.route(request("GET", "/api/session"), true).body)["via"],
            "token");
  WebGate open(gate_options(true), [](const support::HttpRequest& asked) {
    return support::text_reply(200, "page " + asked.path);
  });
  EXPECT_EQ(open.route(request("GET", "/"), false).status, 200);
  const support::HttpReply login = open.route(request("GET", "/login", "job=train"), false);
  EXPECT_EQ(login.status, 303);
  EXPECT_EQ(header(login, "Location"), "/#/jobs/train");
  EXPECT_EQ(header(login, "Set-Cookie"), "");
}

TEST_F(WebGateTest, TheDeskSaysWhenThereIsNoWebViewOrNoSuchKey) {
  const protocol::WebLoginReply none = desk("").reply_to("alice", protocol::WebLoginRequest{});
  EXPECT_FALSE(none.ok);
  EXPECT_NE(none.error.find("--http-listen"), std::string::npos) << none.error;
  const protocol::WebLoginReply gone = desk().reply_to("carol", protocol::WebLoginRequest{});
  EXPECT_FALSE(gone.ok);
  EXPECT_NE(gone.error.find("carol"), std::string::npos) << gone.error;
  const protocol::WebLoginReply open =
      desk("http://hub:7802", true).reply_to("anonymous", protocol::WebLoginRequest{"train"});
  EXPECT_TRUE(open.ok);
  EXPECT_EQ(open.url, "http://hub:7802/#/jobs/train");
  EXPECT_EQ(open.valid_ms, 0);
  const protocol::WebLoginReply too_long =
      desk().reply_to("alice", protocol::WebLoginRequest{std::string(254, 'a')});
  EXPECT_FALSE(too_long.ok);
  EXPECT_NE(too_long.error.find("at most 253"), std::string::npos) << too_long.error;
}

TEST_F(WebGateTest, TheDeskAnswersOnTheAdminSocketWithTheRequestsSeq) {
  struct Sink : OutboundSink {
    void send(OutboundFrame frame) override { frames.push_back(std::move(frame)); }
    void send_batch(std::vector<OutboundFrame>) override {}
    std::vector<OutboundFrame> frames;
  } sink;
  WebLoginDesk answering(WebLoginDeskOptions{"http://hub:7802", false, sessions_,
                                             [this] { return access_; }, [this] { return now_; }},
                         sink);
  answering.answer("peer-1", 7, "bob", protocol::WebLoginRequest{});
  ASSERT_EQ(sink.frames.size(), 1u);
  EXPECT_EQ(sink.frames[0].channel, Channel::kAdmin);
  EXPECT_EQ(sink.frames[0].peer, "peer-1");
  EXPECT_EQ(sink.frames[0].answer_seq, 7u);
  EXPECT_EQ(sink.frames[0].answer_result, "ok");
  protocol::DecodeError error;
  const auto envelope = protocol::decode_envelope(sink.frames[0].frame, error);
  ASSERT_TRUE(envelope);
  EXPECT_EQ(envelope->seq, 7u);
  const auto reply = protocol::decode_payload<protocol::WebLoginReply>(*envelope, error);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->key, "bob");
}

}  // namespace
}  // namespace gantry::actors
