// UTF-8 well-formedness (RFC 3629), header only so that every library, the
// hub core included, can check text it quotes or accepts without linking.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gantry::support {

// The length of the longest prefix of `text` that is well-formed UTF-8: no
// stray continuation bytes, no overlong forms, no surrogates, nothing above
// U+10FFFF. Equal to text.size() when the whole text is well formed.
inline std::size_t utf8_valid_prefix(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    std::uint32_t code = 0;
    std::uint32_t smallest = 0;  // below it the form is overlong
    if ((lead & 0xE0) == 0xC0) {
      length = 2, code = lead & 0x1F, smallest = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3, code = lead & 0x0F, smallest = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4, code = lead & 0x07, smallest = 0x10000;
    } else {
      return i;
    }
    if (text.size() - i < length) return i;
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return i;
      code = (code << 6) | (next & 0x3F);
    }
    if (code < smallest || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return i;
    i += length;
  }
  return i;
}

inline bool is_valid_utf8(std::string_view text) {
  return utf8_valid_prefix(text) == text.size();
}

}  // namespace gantry::support
