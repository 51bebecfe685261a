// The web view's routes and documents (actors/web_view.hpp, web_json.hpp),
// with fixed sources: no hub, no socket (tests/e2e/web_view_test.py drives the
// real page in Chromium).
#include "actors/web_view.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "actors/web_json.hpp"
#include "console/object_json.hpp"

namespace gantry::actors {
namespace {

support::HttpRequest get(std::string path) {
  return support::HttpRequest{"GET", std::move(path), "", ""};
}

std::string header(const support::HttpReply& reply, const std::string& name) {
  for (const auto& [field, value] : reply.headers) {
    if (field == name) return value;
  }
  return "";
}

class WebViewTest : public ::testing::Test {
 protected:
  WebView view_{WebSources{[this] { return overview_; },
                           [this](const std::string& name) -> std::optional<std::string> {
                             if (!answers_) return std::nullopt;
                             return name == "train" ? "{\"job\":{}}" : "";
                           }}};
  std::optional<std::string> overview_ = std::string("{\"jobs\":[]}");
  bool answers_ = true;
};

TEST_F(WebViewTest, ServesThePageItsScriptAndStyleWithTheirTypes) {
  const auto page = view_.route(get("/"));
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("<script src=\"/app.js\">"), std::string::npos);
  EXPECT_NE(header(page, "Content-Security-Policy").find("default-src 'self'"), std::string::npos);
  EXPECT_EQ(view_.route(get("/app.js")).content_type, "text/javascript; charset=utf-8");
  EXPECT_NE(view_.route(get("/app.js")).body.find("new EventSource(\"/api/stream\")"),
            std::string::npos);
  EXPECT_EQ(view_.route(get("/style.css")).content_type, "text/css; charset=utf-8");
}

TEST_F(WebViewTest, TheApiAnswersFromItsSources) {
  const auto overview = view_.route(get("/api/overview"));
  EXPECT_EQ(overview.status, 200);
  EXPECT_EQ(overview.content_type, "application/json");
  EXPECT_EQ(overview.body, "{\"jobs\":[]}");
  EXPECT_EQ(view_.route(get("/api/jobs/train")).status, 200);
  EXPECT_EQ(view_.route(get("/api/jobs/nope")).status, 404);
  answers_ = false;
  overview_.reset();
  EXPECT_EQ(view_.route(get("/api/jobs/train")).status, 503);
  EXPECT_EQ(view_.route(get("/api/overview")).status, 503);
}

TEST_F(WebViewTest, TheStreamIsAnEventStream) {
  const auto stream = view_.route(get("/api/stream"));
  EXPECT_EQ(stream.status, 200);
  EXPECT_EQ(stream.content_type, "text/event-stream");
  EXPECT_TRUE(stream.stream);
}

TEST_F(WebViewTest, OtherPathsAndMethodsAreRefused) {
  EXPECT_EQ(view_.route(get("/nope")).status, 404);
  EXPECT_EQ(view_.route(get("/api/jobs/")).status, 404);
  support::HttpRequest post = get("/api/overview");
  post.method = "POST";
  const auto refused = view_.route(post);
  EXPECT_EQ(refused.status, 405);
  EXPECT_EQ(refused.allow, "GET");
}

TEST(WebJson, TheOverviewHasGantryctlsShapesButNoHeartbeatTime) {
  protocol::ListReply clusters;
  clusters.clusters.push_back(protocol::ClusterInfo{});
  clusters.clusters[0].name = "east";
  clusters.clusters[0].last_seen_ms = 1000;
  protocol::ListReply queues;
  queues.queues.push_back(protocol::QueueInfo{});
  queues.queues[0].name = "default";
  protocol::ListReply jobs;
  jobs.jobs.push_back(protocol::JobInfo{});
  jobs.jobs[0].name = "train";
  jobs.jobs[0].phase = "Running";
  const auto json = nlohmann::ordered_json::parse(overview_json(clusters, queues, jobs));
  auto expected_cluster = console::cluster_json(clusters.clusters[0]);
  expected_cluster.erase("lastSeen");
  EXPECT_EQ(json["clusters"][0], expected_cluster);
  EXPECT_EQ(json["queues"][0], console::queue_json(queues.queues[0]));
  EXPECT_EQ(json["jobs"][0], console::job_json(jobs.jobs[0]));
}

TEST(WebJson, AJobsEventsAreSplitIntoTimeAndText) {
  protocol::DescribeReply reply;
  reply.ok = true;
  reply.job.name = "train";
  reply.events = {"2024-05-01T08:00:00.123Z submitted to queue default", "odd"};
  const auto json = nlohmann::ordered_json::parse(job_page_json(reply));
  EXPECT_EQ(json["job"]["name"], "train");
  EXPECT_EQ(json["events"][0]["time"], "2024-05-01T08:00:00.123Z");
  EXPECT_EQ(json["events"][0]["text"], "submitted to queue default");
  EXPECT_EQ(json["events"][1]["time"], "");
  EXPECT_EQ(json["events"][1]["text"], "odd");
}

}  // namespace
}  // namespace gantry::actors
