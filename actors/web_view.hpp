// The hub's read-only web view (docs/web.md), served on its HTTP endpoint
// behind the endpoint's token check (support/metrics_endpoint.hpp):
//   GET /, /app.js, /style.css  the page (actors/web_assets.hpp)
//   GET /api/overview           clusters, queues and jobs (actors/web_json.hpp)
//   GET /api/jobs/NAME          one job and its events
//   GET /api/stream             the overview as server-sent events, sent when
//                               it changed (checked about once a second)
// Plain C++: what it shows comes from `WebSources`, which ask the scheduler.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "support/http_server.hpp"
#include "support/sse_feed.hpp"

namespace gantry::actors {

// nullopt: the hub did not answer in time (503).
struct WebSources {
  std::function<std::optional<std::string>()> overview;
  // The job's page, "" when there is no such job.
  std::function<std::optional<std::string>(const std::string& name)> job;
};

class WebView {
 public:
  explicit WebView(WebSources sources);
  WebView(const WebView&) = delete;
  WebView& operator=(const WebView&) = delete;

  support::HttpReply route(const support::HttpRequest& request);
  // Before what the sources ask goes away: the stream's feed stops asking.
  void stop();

 private:
  support::HttpReply job(const std::string& name) const;

  WebSources sources_;
  support::SseFeed feed_;
};

}  // namespace gantry::actors
