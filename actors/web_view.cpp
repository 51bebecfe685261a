#include "actors/web_view.hpp"

#include <utility>

#include "actors/web_assets.hpp"

namespace gantry::actors {

namespace {

constexpr std::string_view kJobsPrefix = "/api/jobs/";

support::HttpReply no_answer() {
  return support::text_reply(503, "the hub did not answer in time");
}

support::HttpReply json_reply(std::string json) {
  support::HttpReply reply{200, "application/json", std::move(json), "", ""};
  reply.headers = {{"Cache-Control", "no-store"}};
  return reply;
}

// The page loads only its own scripts and styles, and no page may frame it.
support::HttpReply asset_reply(const WebAsset& asset) {
  support::HttpReply reply{200, std::string(asset.content_type), std::string(asset.body), "", ""};
  reply.headers = {{"Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'"},
                   {"X-Content-Type-Options", "nosniff"},
                   {"Referrer-Policy", "no-referrer"}};
  return reply;
}

}  // namespace

WebView::WebView(WebSources sources)
    : sources_(std::move(sources)), feed_(support::SseFeedOptions{"overview"}, sources_.overview) {}

support::HttpReply WebView::route(const support::HttpRequest& request) {
  const std::string& path = request.path;
  const WebAsset* asset = web_asset(path);
  const bool api = path == "/api/overview" || path == "/api/stream" ||
                   (path.rfind(kJobsPrefix, 0) == 0 && path.size() > kJobsPrefix.size());
  if (asset == nullptr && !api) {
    return support::text_reply(404, "no such path: " + path +
                                        " (/, /api/overview, /api/jobs/NAME, /api/stream, "
                                        "/metrics, /healthz, /readyz)");
  }
  if (request.method != "GET") return support::method_not_allowed(request.method, path, "GET");
  if (asset != nullptr) return asset_reply(*asset);
  if (path == "/api/overview") {
    std::optional<std::string> overview = sources_.overview();
    return overview ? json_reply(std::move(*overview)) : no_answer();
  }
  if (path == "/api/stream") {
    support::HttpReply reply;
    reply.content_type = "text/event-stream";
    reply.stream = [this](std::shared_ptr<support::HttpStream> stream) {
      feed_.add(std::move(stream));
    };
    return reply;
  }
  return job(path.substr(kJobsPrefix.size()));
}

support::HttpReply WebView::job(const std::string& name) const {
  std::optional<std::string> page = sources_.job(name);
  if (!page) return no_answer();
  if (page->empty()) return support::text_reply(404, "no such job: " + name);
  return json_reply(std::move(*page));
}

void WebView::stop() {
  feed_.stop();
}

}  // namespace gantry::actors
