// The mutating admission webhook's HTTPS server: Karmada's API server POSTs an
// AdmissionReview for every new ResourceBinding, and the answer
// (karmada/admission.hpp) suspends it for Gantry. Boost.Beast over OpenSSL,
// on its own threads; each connection runs on its own strand with 30 s
// timeouts, so a stalled or garbage-speaking client holds up nobody else.
// With a client CA, only a client presenting a certificate that CA signed (the
// API server, through its admission kubeconfig) gets past the TLS handshake.
//
//   POST /mutate-resourcebindings (alias /mutate)  AdmissionReview -> 200 application/json
//   GET  /healthz                                  -> 200 "ok"
// Bad JSON or a malformed review -> 400 naming the problem; a body over 4 MiB
// -> 413; other paths 404; other methods 405.
#pragma once

#include <cstdint>
#include <string>

#include "support/http_server.hpp"

namespace gantry::karmada {

struct WebhookOptions {
  std::string listen = "0.0.0.0:8443";  // host:port; port 0 = pick a free one (tests)
  std::string cert_pem_file;            // TLS serving certificate (chain) + key, PEM files
  std::string key_pem_file;
  // CA bundle (PEM) that signed the API server's client certificate. Empty:
  // no client certificate is asked for. Set: a client must present one signed
  // by these CAs, or its TLS handshake fails before any HTTP is read.
  std::string client_ca_pem_file;
};

// An HttpServer (support/http_server.hpp: port, start, stop, requests served)
// that requires TLS and answers the webhook's two paths.
class WebhookServer : public support::HttpServer {
 public:
  // Loads the certificate, key and client CA, and binds the address
  // (connections queue in the backlog until start()); throws
  // std::runtime_error naming the file or the address.
  explicit WebhookServer(const WebhookOptions& options);
};

}  // namespace gantry::karmada
