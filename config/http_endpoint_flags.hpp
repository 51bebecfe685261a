// The flags of a program's HTTP endpoint for machines (support/metrics_endpoint.hpp,
// docs/metrics.md), the same for the hub and the agents.
#pragma once

#include <stdexcept>
#include <string>

#include "config/command_line.hpp"
#include "support/metrics_endpoint.hpp"

namespace gantry::command_line {

// `token_default`: where the token file is when --metrics-token-file is not given.
inline void add_http_endpoint_flags(CLI::App& app, support::HttpEndpointFlags& http,
                                    const std::string& token_default) {
  add_read<std::string>(app, "--http-listen", http.listen, host_port,
                        "serve /metrics (Prometheus), /healthz and /readyz\n"
                        "(default: not served)")
      ->type_name("HOST:PORT");
  add_read<std::string>(app, "--http-cert", http.cert_pem_file, not_empty,
                        "serve them over HTTPS with this certificate (PEM)")
      ->type_name("FILE");
  add_read<std::string>(app, "--http-key", http.key_pem_file, not_empty,
                        "the --http-cert certificate's private key (PEM)")
      ->type_name("FILE");
  add_read<std::filesystem::path>(app, "--metrics-token-file", http.token_file, path,
                                  "the bearer token /metrics asks for, generated on first start\n"
                                  "(default " +
                                      token_default + "; none with --insecure)")
      ->type_name("FILE");
}

// Throws std::invalid_argument naming the flag: a certificate without its key
// (or the other way round), or a flag that means nothing without --http-listen.
inline void check_http_endpoint_flags(const support::HttpEndpointFlags& http) {
  if (http.cert_pem_file.empty() != http.key_pem_file.empty()) {
    const bool cert = !http.cert_pem_file.empty();
    throw std::invalid_argument(std::string(cert ? "--http-cert" : "--http-key") + ": needs " +
                                (cert ? "--http-key" : "--http-cert") + " (got \"" +
                                (cert ? http.cert_pem_file : http.key_pem_file) + "\")");
  }
  // Without an endpoint they would be silently ignored.
  if (http.listen.empty() && !http.cert_pem_file.empty())
    throw std::invalid_argument("--http-cert: only with --http-listen (got \"" +
                                http.cert_pem_file + "\")");
  if (http.listen.empty() && !http.token_file.empty())
    throw std::invalid_argument("--metrics-token-file: only with --http-listen (got \"" +
                                http.token_file.string() + "\")");
}

}  // namespace gantry::command_line
