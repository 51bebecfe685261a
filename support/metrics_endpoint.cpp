#include "support/metrics_endpoint.hpp"

#include <spdlog/spdlog.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "support/http_server.hpp"
#include "support/private_file.hpp"
#include "support/prometheus_text.hpp"
#include "support/random_hex.hpp"
#include "support/text_trim.hpp"
#include "support/web_login.hpp"

namespace gantry::support {

namespace {

constexpr std::size_t kTokenBytes = 32;
constexpr std::uintmax_t kMaxTokenFileBytes = 4096;
// Scrapes and probes carry no body; a few KiB of headers is all they need.
constexpr std::uint64_t kMaxBodyBytes = 1024;

std::runtime_error token_error(const std::filesystem::path& file, const std::string& what) {
  return std::runtime_error("--metrics-token-file " + file.string() + ": " + what);
}

bool loopback(const std::string& listen) {
  const std::string host = listen.substr(0, listen.rfind(':'));
  return host == "localhost" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

HttpReply no_answer() {
  return text_reply(503, "the process did not answer in time");
}

}  // namespace

std::string load_or_generate_token(const std::filesystem::path& file) {
  std::error_code error;
  if (!std::filesystem::exists(file, error)) {
    const std::string token = random_hex(kTokenBytes);
    write_new_file(file, token + "\n", 0600);
    spdlog::info("generated the metrics scrape token in {}: Prometheus sends it as a bearer token",
                 file.string());
    return token;
  }
  const std::uintmax_t size = std::filesystem::file_size(file, error);
  if (error) throw token_error(file, error.message());
  if (size > kMaxTokenFileBytes)
    throw token_error(file, "is " + std::to_string(size) + " bytes; a token file is at most " +
                                std::to_string(kMaxTokenFileBytes));
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) throw token_error(file, "cannot read it");
  std::string token = trimmed(text.str());
  if (token.empty()) throw token_error(file, "holds no token");
  return token;
}

struct MetricsEndpoint::State {
  State(MetricsSources given, std::string secret)
      : sources(std::move(given)), token(std::move(secret)) {}

  HttpReply route(const HttpRequest& request) const {
    const std::string& path = request.path;
    if (path != "/metrics" && path != "/healthz" && path != "/readyz") return web(request);
    if (request.method != "GET") return method_not_allowed(request.method, path, "GET");
    if (path == "/metrics") return metrics(request);
    const std::optional<std::string> why_not = sources.not_ready();
    if (!why_not) return no_answer();
    if (path == "/healthz" || why_not->empty()) return text_reply(200, "ok");
    return text_reply(503, *why_not);
  }

  // The web view's paths: it decides who may see them (a browser logs in
  // there), told whether the request carries the token.
  HttpReply web(const HttpRequest& request) const {
    if (!sources.web)
      return text_reply(404, "no such path: " + request.path + " (/metrics, /healthz, /readyz)");
    return sources.web(request,
                       token.empty() || same_secret(request.authorization, "Bearer " + token));
  }

  HttpReply metrics(const HttpRequest& request) const {
    if (!token.empty() && !same_secret(request.authorization, "Bearer " + token)) {
      HttpReply refused = text_reply(
          401,
          "/metrics needs the bearer token of --metrics-token-file (Authorization: Bearer "
          "TOKEN)");
      refused.www_authenticate = "Bearer realm=\"gantry\"";
      return refused;
    }
    std::optional<std::string> text = sources.metrics();
    if (!text) return no_answer();
    return HttpReply{200, std::string(kPrometheusContentType), std::move(*text), "", ""};
  }

  MetricsSources sources;
  std::string token;  // "" when insecure: anyone may scrape
  std::unique_ptr<HttpServer> server;
};

MetricsEndpoint::MetricsEndpoint(const MetricsEndpointOptions& options, MetricsSources sources) {
  std::string token;
  const HttpEndpointFlags& http = options.http;
  if (options.insecure) {
    spdlog::warn("*** --insecure: /metrics{} on {} answer anyone, without a token ***",
                 sources.web ? " and the web view" : "", http.listen);
  } else {
    token = load_or_generate_token(http.token_file);
  }
  if (http.cert_pem_file.empty() && !loopback(http.listen))
    spdlog::warn(
        "--http-listen {}: plain HTTP beyond loopback; the scrape token crosses the "
        "network in clear (--http-cert and --http-key serve HTTPS)",
        http.listen);
  state_ = std::make_unique<State>(std::move(sources), std::move(token));
  HttpServerOptions server;
  server.name = "http";
  server.listen = http.listen;
  server.cert_pem_file = http.cert_pem_file;
  server.key_pem_file = http.key_pem_file;
  server.max_body_bytes = kMaxBodyBytes;
  server.threads = 1;
  const State* state = state_.get();
  state_->server = std::make_unique<HttpServer>(
      server, [state](const HttpRequest& request) { return state->route(request); });
  state_->server->start();
}

MetricsEndpoint::~MetricsEndpoint() {
  stop();
}

std::uint16_t MetricsEndpoint::port() const {
  return state_->server->port();
}

void MetricsEndpoint::stop() {
  state_->server->stop();
}

}  // namespace gantry::support
