// A bounded, printable excerpt of outside input for error messages and logs.
// Errors used to quote whole values (a 100 MB name, a whole request body);
// quoting at most a few hundred bytes keeps an error as small as the problem
// is easy to recognise. Header only: the hub core's FieldError uses it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

#include "support/utf8.hpp"

namespace gantry::support {

inline constexpr std::size_t kDefaultExcerptBytes = 200;

// At most `max_bytes` of `text` (whole characters only), bytes that are not
// UTF-8 written as \xNN (error messages travel in JSON and msgpack strings,
// which must be valid UTF-8), and "... (N bytes)" when it was cut.
inline std::string text_excerpt(std::string_view text,
                                std::size_t max_bytes = kDefaultExcerptBytes) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size() && out.size() < max_bytes) {
    const std::string_view rest = text.substr(at);
    const std::size_t valid = utf8_valid_prefix(rest);
    std::size_t take = std::min(valid, max_bytes - out.size());
    // Never cut a character in two: step back to the start of the one cut.
    while (take > 0 && take < valid && (static_cast<unsigned char>(rest[take]) & 0xC0) == 0x80)
      --take;
    out.append(rest.substr(0, take));
    at += take;
    if (take < valid) break;  // out of room
    if (at < text.size()) {   // an invalid byte
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", static_cast<unsigned char>(text[at]));
      out += escaped;
      ++at;
    }
  }
  if (at < text.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

}  // namespace gantry::support
