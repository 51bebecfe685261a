#include "karmada/webhook_server.hpp"

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "config/bounded_json.hpp"
#include "hub/field_error.hpp"
#include "karmada/admission.hpp"
#include "support/http_server.hpp"

namespace gantry::karmada {
namespace {

using support::HttpReply;
using support::text_reply;

// Kubernetes gives a webhook at most 30 s (timeoutSeconds); a connection idle
// or stalled longer than that is not the API server waiting on us.
constexpr auto kIoTimeout = std::chrono::seconds(30);
// AdmissionReviews carry one object plus its old version; Kubernetes objects
// are capped at ~1.5 MiB in etcd, so 4 MiB is generous and bounds memory.
constexpr std::uint64_t kMaxBodyBytes = 4 * 1024 * 1024;
// Admission traffic is one request per ResourceBinding created: two threads
// keep one slow TLS handshake from delaying another, no more is needed.
constexpr int kThreads = 2;

// The review's answer, or the 400 that names what is wrong with it.
HttpReply review_reply(const std::string& body) {
  nlohmann::json review;
  try {
    review = config::parse_bounded_json(body, "AdmissionReview");
  } catch (const hub::FieldError& error) {  // not JSON, or nested past the limit
    return text_reply(400,
                      std::string("request body is not JSON within the limits: ") + error.what());
  }
  try {
    return HttpReply{200, "application/json", admission_response(review).dump(), "", ""};
  } catch (const hub::FieldError& error) {
    return text_reply(400, error.what());
  } catch (const nlohmann::json::exception& error) {
    // A field of an unexpected JSON type that admission_response did not name:
    // still the caller's input, not our failure.
    return text_reply(400, std::string("malformed AdmissionReview: ") + error.what());
  } catch (const std::exception& error) {
    return text_reply(500, std::string("internal error: ") + error.what());
  }
}

HttpReply route(const support::HttpRequest& request) {
  const std::string& path = request.path;
  if (path == "/healthz") {
    if (request.method != "GET") return support::method_not_allowed(request.method, path, "GET");
    return text_reply(200, "ok");
  }
  if (path == "/mutate-resourcebindings" || path == "/mutate") {
    if (request.method != "POST") return support::method_not_allowed(request.method, path, "POST");
    return review_reply(request.body);
  }
  return text_reply(404, "no such path: " + path);
}

support::HttpServerOptions server_options(const WebhookOptions& options) {
  support::HttpServerOptions server;
  server.name = "webhook";
  server.listen = options.listen;
  server.cert_pem_file = options.cert_pem_file;
  server.key_pem_file = options.key_pem_file;
  server.tls_required = true;
  server.client_ca_pem_file = options.client_ca_pem_file;
  server.max_body_bytes = kMaxBodyBytes;
  server.threads = kThreads;
  server.io_timeout = kIoTimeout;
  return server;
}

}  // namespace

WebhookServer::WebhookServer(const WebhookOptions& options)
    : support::HttpServer(server_options(options), route) {}

}  // namespace gantry::karmada
