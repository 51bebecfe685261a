// support/metrics_endpoint.hpp: the scrape token, and what each path answers
// (over a real loopback socket; the hub's and agents' sources are their own
// tests', and tests/e2e/metrics_test.py has a real Prometheus scrape them).
#include "support/metrics_endpoint.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>

#include "support/temp_dir.hpp"
#include "tests/support/loopback_http.hpp"

namespace gantry::support {
namespace {

namespace http = boost::beast::http;

http::response<http::string_body> get(std::uint16_t port, const std::string& target,
                                      const std::string& authorization = "") {
  return loopback_get(port, target,
                      authorization.empty() ? http::field::unknown : http::field::authorization,
                      authorization);
}

class MetricsEndpointTest : public ::testing::Test {
 protected:
  void start(bool insecure = false) {
    MetricsEndpointOptions options;
    options.http.listen = "127.0.0.1:0";
    options.http.token_file = dir_.path() / "metrics.token";
    options.insecure = insecure;
    MetricsSources sources;
    sources.metrics = [this] { return metrics_; };
    sources.not_ready = [this] { return not_ready_; };
    endpoint_ = std::make_unique<MetricsEndpoint>(options, sources);
  }
  std::string bearer() { return "Bearer " + load_or_generate_token(dir_.path() / "metrics.token"); }

  TempDir dir_;
  std::optional<std::string> metrics_ = std::string("up 1\n");
  std::optional<std::string> not_ready_ = std::string();
  std::unique_ptr<MetricsEndpoint> endpoint_;
};

TEST_F(MetricsEndpointTest, MetricsNeedTheGeneratedToken) {
  start();
  const auto refused = get(endpoint_->port(), "/metrics");
  EXPECT_EQ(refused.result_int(), 401);
  EXPECT_EQ(refused[http::field::www_authenticate], "Bearer realm=\"gantry\"");
  EXPECT_EQ(get(endpoint_->port(), "/metrics", "Bearer wrong").result_int(), 401);
  const auto scraped = get(endpoint_->port(), "/metrics", bearer());
  EXPECT_EQ(scraped.result_int(), 200);
  EXPECT_EQ(scraped.body(), "up 1\n");
  EXPECT_EQ(scraped[http::field::content_type], "text/plain; version=0.0.4; charset=utf-8");
}

TEST_F(MetricsEndpointTest, InsecureAnswersAnyoneAndMakesNoToken) {
  start(true);
  EXPECT_EQ(get(endpoint_->port(), "/metrics").result_int(), 200);
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "metrics.token"));
}

TEST_F(MetricsEndpointTest, ReadinessSaysWhyNotAndHealthOnlyThatItAnswers) {
  start();
  not_ready_ = "recovering: waiting";
  const auto ready = get(endpoint_->port(), "/readyz");
  EXPECT_EQ(ready.result_int(), 503);
  EXPECT_EQ(ready.body(), "recovering: waiting\n");
  EXPECT_EQ(get(endpoint_->port(), "/healthz").result_int(), 200);
  not_ready_ = "";
  EXPECT_EQ(get(endpoint_->port(), "/readyz").body(), "ok\n");
}

TEST_F(MetricsEndpointTest, NoAnswerIsAServiceUnavailable) {
  start();
  not_ready_.reset();
  metrics_.reset();
  EXPECT_EQ(get(endpoint_->port(), "/healthz").result_int(), 503);
  EXPECT_EQ(get(endpoint_->port(), "/readyz").result_int(), 503);
  EXPECT_EQ(get(endpoint_->port(), "/metrics", bearer()).result_int(), 503);
}

TEST_F(MetricsEndpointTest, OtherPathsAndMethodsAreRefused) {
  start();
  EXPECT_EQ(get(endpoint_->port(), "/").result_int(), 404);
  EXPECT_EQ(get(endpoint_->port(), "/metrics/x").result_int(), 404);
}

// ---- the scrape token file

TEST(MetricsToken, GeneratedOnceOwnerOnlyThenReadBack) {
  support::TempDir dir;
  const auto file = dir.path() / "metrics.token";
  const std::string token = load_or_generate_token(file);
  EXPECT_EQ(token.size(), 64u);
  struct stat status {};
  ASSERT_EQ(::stat(file.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0600);
  EXPECT_EQ(load_or_generate_token(file), token);
}

TEST(MetricsToken, AGivenTokenIsTrimmedAndAnEmptyOneRefused) {
  support::TempDir dir;
  const auto file = dir.path() / "given.token";
  std::ofstream(file) << "  s3cret\n";
  EXPECT_EQ(load_or_generate_token(file), "s3cret");
  std::ofstream(file) << " \n";
  try {
    load_or_generate_token(file);
    FAIL() << "an empty token file was accepted";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("given.token: holds no token"), std::string::npos)
        << error.what();
  }
}

TEST(MetricsToken, AnOversizedFileIsRefusedNamingTheLimit) {
  support::TempDir dir;
  const auto file = dir.path() / "huge.token";
  std::ofstream(file) << std::string(5000, 'x');
  try {
    load_or_generate_token(file);
    FAIL() << "a 5000-byte token file was accepted";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("at most 4096"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace gantry::support
