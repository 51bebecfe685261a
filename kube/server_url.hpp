// The parts of an API server URL ("https://host:port/prefix") a connection needs.
#pragma once

#include <string>

namespace gantry::kube {

struct ServerUrl {
  bool tls = true;
  std::string host;         // without IPv6 brackets
  std::string port;         // "443" / "80" when the URL has none
  std::string host_header;  // host[:port] as the Host header wants it
  std::string base_path;    // "" or "/prefix" (no trailing slash), put before every path
  bool host_is_ip = false;  // IP literals get no SNI and are verified as IP SANs
};

// Throws std::runtime_error naming the server when it is not an http(s) URL.
ServerUrl parse_server_url(const std::string& server);

}  // namespace gantry::kube
