// The web view's door on the metrics endpoint (support/web_login.hpp,
// support/metrics_endpoint.hpp): the token as a bearer token or as the cookie
// /login sets, over a real loopback socket.
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

class WebLoginTest : public ::testing::Test {
 protected:
  void start(bool insecure = false) {
    MetricsEndpointOptions options;
    options.http.listen = "127.0.0.1:0";
    options.http.token_file = dir_.path() / "metrics.token";
    options.insecure = insecure;
    MetricsSources sources;
    sources.metrics = [] { return std::string("up 1\n"); };
    sources.not_ready = [] { return std::string(); };
    sources.web = [](const HttpRequest& request) {
      return text_reply(200, "page " + request.path);
    };
    endpoint_ = std::make_unique<MetricsEndpoint>(options, sources);
  }
  std::string token() { return load_or_generate_token(dir_.path() / "metrics.token"); }

  TempDir dir_;
  std::unique_ptr<MetricsEndpoint> endpoint_;
};

TEST_F(WebLoginTest, ThePageNeedsTheToken) {
  start();
  const auto refused = get(endpoint_->port(), "/");
  EXPECT_EQ(refused.result_int(), 401);
  EXPECT_NE(refused.body().find("/login?token="), std::string::npos) << refused.body();
  EXPECT_EQ(get(endpoint_->port(), "/", http::field::authorization, "Bearer wrong").result_int(),
            401);
  EXPECT_EQ(get(endpoint_->port(), "/", http::field::cookie, "gantry_token=wrong").result_int(),
            401);
  const auto page = get(endpoint_->port(), "/", http::field::authorization, "Bearer " + token());
  EXPECT_EQ(page.result_int(), 200);
  EXPECT_EQ(page.body(), "page /\n");
}

TEST_F(WebLoginTest, LoginSetsAStrictHttpOnlyCookieThatOpensThePage) {
  start();
  EXPECT_EQ(get(endpoint_->port(), "/login?token=wrong").result_int(), 401);
  const auto login = get(endpoint_->port(), "/login?token=" + token());
  EXPECT_EQ(login.result_int(), 303);
  EXPECT_EQ(login[http::field::location], "/");
  const std::string cookie(login[http::field::set_cookie]);
  EXPECT_EQ(cookie, "gantry_token=" + token() + "; Path=/; HttpOnly; SameSite=Strict");
  const std::string sent = "other=1; " + cookie.substr(0, cookie.find(';'));
  const auto page = get(endpoint_->port(), "/api/overview", http::field::cookie, sent);
  EXPECT_EQ(page.result_int(), 200);
  EXPECT_EQ(page.body(), "page /api/overview\n");
}

TEST_F(WebLoginTest, TheCookieDoesNotOpenMetrics) {
  start();
  EXPECT_EQ(get(endpoint_->port(), "/metrics", http::field::cookie, "gantry_token=" + token())
                .result_int(),
            401);
}

TEST_F(WebLoginTest, InsecureOpensThePageToAnyone) {
  start(true);
  EXPECT_EQ(get(endpoint_->port(), "/").result_int(), 200);
  EXPECT_EQ(get(endpoint_->port(), "/login").result_int(), 303);
}

TEST(WebLogin, OverHttpsTheCookieIsSecureAndATokenACookieCannotCarryIsRefused) {
  HttpRequest login{"GET", "/login", "", ""};
  login.query = "token=abc";
  const HttpReply reply = login_reply(login, "abc", true);
  EXPECT_EQ(reply.status, 303);
  ASSERT_EQ(reply.headers.size(), 2u);
  EXPECT_EQ(reply.headers[1].second, "gantry_token=abc; Path=/; HttpOnly; SameSite=Strict; Secure");
  login.query = "token=a%3Bb";
  const HttpReply refused = login_reply(login, "a;b", false);
  EXPECT_EQ(refused.status, 500);
  EXPECT_NE(refused.body.find("cookie"), std::string::npos) << refused.body;
}

TEST(WebLogin, QueryValuesArePercentDecoded) {
  EXPECT_EQ(query_value("a=1&token=x%2By%3d&b=2", "token"), "x+y=");
  EXPECT_EQ(query_value("a=1", "token"), "");
  EXPECT_EQ(query_value("tokens=1&token=2", "token"), "2");
}

}  // namespace
}  // namespace gantry::support
