// The HTTP endpoint of a Gantry process for machines (docs/metrics.md): what
// the process reports, asked for when a request comes:
//   GET /metrics  Prometheus text; needs "Authorization: Bearer TOKEN" unless insecure
//   GET /healthz  200 "ok" while the process answers
//   GET /readyz   200 "ok" when ready, else 503 and why not
//   any other path: the web view (docs/web.md), when the process serves one,
//                 told whether the request carries the same token (a program's
//                 access); a browser's login is the web view's own
//                 (actors/web_gate.hpp)
// Over support/http_server (HTTPS with a certificate and key).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "support/http_server.hpp"

namespace gantry::support {

// The endpoint's flags, as the hub and agents take them (config/http_endpoint_flags.hpp):
// --http-listen, --http-cert, --http-key, --metrics-token-file.
struct HttpEndpointFlags {
  std::string listen;  // host:port; "" = no endpoint
  std::string cert_pem_file;
  std::string key_pem_file;
  std::filesystem::path token_file;  // "" = the program's default
};

struct MetricsEndpointOptions {
  HttpEndpointFlags http;  // token_file resolved: generated when missing, unused when insecure
  bool insecure = false;   // /metrics answers anyone (logged as a warning)
};

// What the process says. nullopt: it did not answer in time (503).
struct MetricsSources {
  std::function<std::optional<std::string>()> metrics;
  // "" when ready, else why not.
  std::function<std::optional<std::string>()> not_ready;
  // Every other path. `bearer`: the request carries the token as
  // "Authorization: Bearer TOKEN" (always true when insecure). Unset: those
  // paths are 404.
  std::function<HttpReply(const HttpRequest&, bool bearer)> web{};
};

// Reads the scrape token (surrounding whitespace trimmed), or generates one
// (mode 0600) when the file does not exist. Throws std::runtime_error naming
// the file when it is empty or too long.
std::string load_or_generate_token(const std::filesystem::path& file);

class MetricsEndpoint {
 public:
  // Binds the address and starts serving; throws std::runtime_error naming
  // what is wrong (the address, a certificate, the token file).
  MetricsEndpoint(const MetricsEndpointOptions& options, MetricsSources sources);
  ~MetricsEndpoint();  // stop()
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  std::uint16_t port() const;
  // Before what `sources` ask goes away. Idempotent.
  void stop();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gantry::support
