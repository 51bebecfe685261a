#include "kube/base64.hpp"

#include <algorithm>
#include <cctype>

namespace gantry::kube {
namespace {

int sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::optional<std::string> decode_base64(std::string_view text) {
  std::string compact;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) compact.push_back(c);
  }
  if (compact.size() % 4 != 0) return std::nullopt;
  std::size_t padding = 0;
  while (padding < 2 && padding < compact.size() && compact[compact.size() - 1 - padding] == '=') {
    ++padding;
  }
  std::string out;
  out.reserve(compact.size() / 4 * 3);
  unsigned bits = 0;
  int bit_count = 0;
  for (std::size_t i = 0; i < compact.size() - padding; ++i) {
    const int value = sextet(compact[i]);
    if (value < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<unsigned>(value);
    bit_count += 6;
    if (bit_count >= 8) {
      bit_count -= 8;
      out.push_back(static_cast<char>((bits >> bit_count) & 0xFF));
    }
  }
  return out;
}

std::string encode_base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t count = std::min<std::size_t>(3, bytes.size() - i);
    unsigned group = 0;
    for (std::size_t j = 0; j < 3; ++j) {
      const unsigned byte = j < count ? static_cast<unsigned char>(bytes[i + j]) : 0;
      group = (group << 8) | byte;
    }
    for (std::size_t j = 0; j < 4; ++j) {
      out.push_back(j <= count ? kAlphabet[(group >> (18 - 6 * j)) & 0x3F] : '=');
    }
  }
  return out;
}

}  // namespace gantry::kube
