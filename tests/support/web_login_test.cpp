// The web view's door on the metrics endpoint (support/metrics_endpoint.hpp):
// every path but /metrics, /healthz and /readyz goes to the web view, told
// whether it carries the scrape token, over a real loopback socket; and the
// HTTP pieces a login takes (support/web_login.hpp).
#include "support/web_login.hpp"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <string>

#include "support/metrics_endpoint.hpp"
#include "support/temp_dir.hpp"
#include "tests/support/loopback_http.hpp"

namespace gantry::support {
namespace {

namespace http = boost::beast::http;

http::response<http::string_body> get(std::uint16_t port, const std::string& target,
                                      http::field field = http::field::unknown,
                                      const std::string& value = "") {
  return loopback_get(port, target, field, value);
}

class WebDoorTest : public ::testing::Test {
 protected:
  void start(bool insecure = false) {
    MetricsEndpointOptions options;
    options.http.listen = "127.0.0.1:0";
    options.http.token_file = dir_.path() / "metrics.token";
    options.insecure = insecure;
    MetricsSources sources;
    sources.metrics = [] { return std::string("up 1\n"); };
    sources.not_ready = [] { return std::string(); };
    sources.web = [](const HttpRequest& request, bool bearer) {
      return text_reply(200, "page " + request.path + (bearer ? " with the token" : " without"));
    };
    endpoint_ = std::make_unique<MetricsEndpoint>(options, sources);
  }
  std::string token() { return load_or_generate_token(dir_.path() / "metrics.token"); }

  TempDir dir_;
  std::unique_ptr<MetricsEndpoint> endpoint_;
};

TEST_F(WebDoorTest, TheWebViewIsToldWhetherTheRequestCarriesTheToken) {
  start();
  EXPECT_EQ(get(endpoint_->port(), "/").body(), "page / without\n");
  EXPECT_EQ(get(endpoint_->port(), "/", http::field::authorization, "Bearer wrong").body(),
            "page / without\n");
  EXPECT_EQ(get(endpoint_->port(), "/api/overview", http::field::authorization, "Bearer " + token())
                .body(),
            "page /api/overview with the token\n");
  EXPECT_EQ(get(endpoint_->port(), "/login?token=" + token()).body(), "page /login without\n")
      << "a token in the URL is no token";
}

TEST_F(WebDoorTest, InsecureLetsEveryRequestIn) {
  start(true);
  EXPECT_EQ(get(endpoint_->port(), "/").body(), "page / with the token\n");
}

TEST(WebLogin, TheSessionCookieIsStrictHttpOnlyKeptItsTimeAndSecureOverHttps) {
  EXPECT_EQ(session_cookie("ab12", std::chrono::hours(12), false),
            "gantry_session=ab12; Path=/; Max-Age=43200; HttpOnly; SameSite=Strict");
  EXPECT_EQ(session_cookie("", std::chrono::seconds(0), true),
            "gantry_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict; Secure");
}

TEST(WebLogin, ACookieIsFoundAmongOthers) {
  EXPECT_EQ(cookie_value("a=1; gantry_session=s2;b=3", "gantry_session"), "s2");
  EXPECT_EQ(cookie_value("gantry_sessions=x", "gantry_session"), "");
  EXPECT_EQ(cookie_value("", "gantry_session"), "");
}

TEST(WebLogin, QueryValuesArePercentDecodedAndEncoded) {
  EXPECT_EQ(query_value("a=1&ticket=x%2By%3d&b=2", "ticket"), "x+y=");
  EXPECT_EQ(query_value("a=1", "ticket"), "");
  EXPECT_EQ(query_value("tickets=1&ticket=2", "ticket"), "2");
  EXPECT_EQ(percent_encoded("train-1.a_b~"), "train-1.a_b~");
  EXPECT_EQ(percent_encoded("a b/&#\"<"), "a%20b%2F%26%23%22%3C");
  EXPECT_EQ(query_value("job=" + percent_encoded("x&y=z"), "job"), "x&y=z");
}

TEST(WebLogin, SecretsAreComparedWhole) {
  EXPECT_TRUE(same_secret("abc", "abc"));
  EXPECT_FALSE(same_secret("abd", "abc"));
  EXPECT_FALSE(same_secret("ab", "abc"));
}

}  // namespace
}  // namespace gantry::support
