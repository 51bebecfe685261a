#include "actors/hub_http.hpp"

#include <openssl/crypto.h>
#include <spdlog/spdlog.h>

#include <caf/all.hpp>
#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "actors/actor_spawn.hpp"
#include "support/http_server.hpp"
#include "support/private_file.hpp"
#include "support/prometheus_text.hpp"
#include "support/random_hex.hpp"

namespace gantry::actors {

namespace {

using support::HttpReply;
using support::text_reply;

// A scraper gives up after its scrape_timeout (10 s by default); a scheduler
// that has not answered in 5 s is stuck or very busy, which is the answer.
constexpr auto kAskTimeout = std::chrono::seconds(5);
constexpr std::size_t kTokenBytes = 32;
constexpr std::uintmax_t kMaxTokenFileBytes = 4096;
// Scrapes and probes carry no body; a few KiB of headers is all they need.
constexpr std::uint64_t kMaxBodyBytes = 1024;

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// Constant time in the token's content: a timing difference must not tell a
// guesser how many leading characters were right.
bool same_secret(const std::string& given, const std::string& secret) {
  return given.size() == secret.size() &&
         CRYPTO_memcmp(given.data(), secret.data(), secret.size()) == 0;
}

// The scheduler actor's answer, or none when it does not answer in time.
template <class Atom>
std::optional<std::string> ask(caf::actor_system& system, const caf::actor& scheduler, Atom atom) {
  caf::scoped_actor self{system};
  std::optional<std::string> answer;
  self->request(scheduler, kAskTimeout, atom)
      .receive([&](std::string& text) { answer = std::move(text); },
               [&](const caf::error& error) {
                 spdlog::warn("http: the scheduler did not answer: {}", system.render(error));
               });
  return answer;
}

bool loopback(const std::string& listen) {
  const std::string host = listen.substr(0, listen.rfind(':'));
  return host == "localhost" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

}  // namespace

std::string load_or_generate_token(const std::filesystem::path& file) {
  std::error_code error;
  if (!std::filesystem::exists(file, error)) {
    const std::string token = support::random_hex(kTokenBytes);
    support::write_new_file(file, token + "\n", 0600);
    spdlog::info("generated the metrics scrape token in {}: Prometheus sends it as a bearer token",
                 file.string());
    return token;
  }
  const std::uintmax_t size = std::filesystem::file_size(file, error);
  if (error)
    throw std::runtime_error("--metrics-token-file " + file.string() + ": " + error.message());
  if (size > kMaxTokenFileBytes)
    throw std::runtime_error("--metrics-token-file " + file.string() + ": is " +
                             std::to_string(size) + " bytes; a token file is at most " +
                             std::to_string(kMaxTokenFileBytes));
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) throw std::runtime_error("--metrics-token-file " + file.string() + ": cannot read it");
  std::string token = trimmed(text.str());
  if (token.empty())
    throw std::runtime_error("--metrics-token-file " + file.string() + ": holds no token");
  return token;
}

struct HubHttp::State {
  State(caf::actor_system& actors, caf::actor scheduler_actor, std::string secret)
      : system(actors), scheduler(std::move(scheduler_actor)), token(std::move(secret)) {}

  HttpReply route(const support::HttpRequest& request) {
    const std::string& path = request.path;
    if (path != "/metrics" && path != "/healthz" && path != "/readyz")
      return text_reply(404, "no such path: " + path + " (/metrics, /healthz, /readyz)");
    if (request.method != "GET") return support::method_not_allowed(request.method, path, "GET");
    if (path == "/metrics") return metrics(request);
    const std::optional<std::string> why_not = ask(system, scheduler, ready_atom_v);
    if (!why_not) return text_reply(503, "the scheduler did not answer within 5s");
    if (path == "/healthz" || why_not->empty()) return text_reply(200, "ok");
    return text_reply(503, *why_not);
  }

  HttpReply metrics(const support::HttpRequest& request) {
    if (!token.empty() && !same_secret(request.authorization, "Bearer " + token)) {
      HttpReply refused = text_reply(401,
                                     "/metrics needs the bearer token of the hub's "
                                     "--metrics-token-file (Authorization: Bearer TOKEN)");
      refused.www_authenticate = "Bearer realm=\"gantry\"";
      return refused;
    }
    std::optional<std::string> text = ask(system, scheduler, metrics_atom_v);
    if (!text) return text_reply(503, "the scheduler did not answer within 5s");
    return HttpReply{200, std::string(support::kPrometheusContentType), std::move(*text), "", ""};
  }

  caf::actor_system& system;
  caf::actor scheduler;
  std::string token;  // "" with --insecure: anyone may scrape
  std::unique_ptr<support::HttpServer> server;
};

HubHttp::HubHttp(const HubHttpOptions& options, const std::filesystem::path& state_dir,
                 bool insecure, caf::actor_system& system, const caf::actor& scheduler) {
  std::string token;
  if (insecure) {
    spdlog::warn("*** --insecure: /metrics on {} answers anyone, without a token ***",
                 options.listen);
  } else {
    token = load_or_generate_token(options.token_file.empty() ? state_dir / "metrics.token"
                                                              : options.token_file);
  }
  if (options.cert_pem_file.empty() && !loopback(options.listen))
    spdlog::warn(
        "--http-listen {}: plain HTTP beyond loopback; the scrape token crosses the "
        "network in clear (--http-cert and --http-key serve HTTPS)",
        options.listen);
  state_ = std::make_unique<State>(system, scheduler, std::move(token));
  support::HttpServerOptions server;
  server.name = "http";
  server.listen = options.listen;
  server.cert_pem_file = options.cert_pem_file;
  server.key_pem_file = options.key_pem_file;
  server.max_body_bytes = kMaxBodyBytes;
  server.threads = 1;
  State* state = state_.get();
  state_->server = std::make_unique<support::HttpServer>(
      server, [state](const support::HttpRequest& request) { return state->route(request); });
  state_->server->start();
}

HubHttp::~HubHttp() {
  stop();
}

std::uint16_t HubHttp::port() const {
  return state_->server->port();
}

void HubHttp::stop() {
  state_->server->stop();
}

}  // namespace gantry::actors
