// Building query strings on API paths that may already carry some.
#pragma once

#include <string>

namespace gantry::kube {

// "path?a=b" + "c=d" -> "path?a=b&c=d"; "path" + "c=d" -> "path?c=d".
inline std::string append_query(const std::string& path, const std::string& parameters) {
  if (parameters.empty()) return path;
  return path + (path.find('?') == std::string::npos ? '?' : '&') + parameters;
}

// Percent-encodes everything but RFC 3986's unreserved characters (continue
// tokens are base64 and carry '=', '+', '/').
inline std::string encode_query_value(const std::string& value) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out.push_back(static_cast<char>(c));
    } else {
      out += {'%', hex[c >> 4], hex[c & 0xF]};
    }
  }
  return out;
}

}  // namespace gantry::kube
