#include "kube/server_url.hpp"

#include <boost/asio/ip/address.hpp>
#include <stdexcept>

namespace gantry::kube {
namespace {

[[noreturn]] void bad_url(const std::string& server, const std::string& problem) {
  throw std::runtime_error("kube server \"" + server + "\": " + problem);
}

bool is_ip(const std::string& host) {
  boost::system::error_code error;
  boost::asio::ip::make_address(host, error);
  return !error;
}

}  // namespace

ServerUrl parse_server_url(const std::string& server) {
  ServerUrl url;
  std::string rest;
  if (server.rfind("https://", 0) == 0) {
    rest = server.substr(8);
  } else if (server.rfind("http://", 0) == 0) {
    url.tls = false;
    rest = server.substr(7);
  } else {
    bad_url(server, "not an http:// or https:// URL");
  }
  const auto slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  if (slash != std::string::npos) {
    url.base_path = rest.substr(slash);
    while (!url.base_path.empty() && url.base_path.back() == '/') url.base_path.pop_back();
  }
  if (authority.empty()) bad_url(server, "no host");
  url.host_header = authority;

  std::string port_text;
  if (authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string::npos) bad_url(server, "unclosed '[' in the host");
    url.host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') bad_url(server, "junk after the IPv6 address");
      port_text = authority.substr(close + 2);
    }
  } else {
    const auto colon = authority.find(':');
    url.host = authority.substr(0, colon);
    if (colon != std::string::npos) port_text = authority.substr(colon + 1);
  }
  if (url.host.empty()) bad_url(server, "no host");
  if (port_text.empty()) {
    url.port = url.tls ? "443" : "80";
  } else {
    if (port_text.find_first_not_of("0123456789") != std::string::npos || port_text.size() > 5 ||
        std::stoi(port_text) > 65535 || std::stoi(port_text) == 0) {
      bad_url(server, "bad port \"" + port_text + "\"");
    }
    url.port = port_text;
  }
  url.host_is_ip = is_ip(url.host);
  return url;
}

}  // namespace gantry::kube
