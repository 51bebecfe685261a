#include "support/base64.hpp"

#include <openssl/evp.h>

#include <cctype>
#include <climits>
#include <stdexcept>

namespace gantry::support {

namespace {

const unsigned char* bytes_of(std::string_view text) {
  return reinterpret_cast<const unsigned char*>(text.data());
}

}  // namespace

std::string encode_base64(std::string_view bytes) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX) / 4 * 3)
    throw std::length_error("base64: more than " + std::to_string(INT_MAX / 4 * 3) + " bytes");
  std::string out((bytes.size() + 2) / 3 * 4 + 1, '\0');  // EVP_EncodeBlock ends it with a NUL
  const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), bytes_of(bytes),
                                      static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(written));
  return out;
}

std::optional<std::string> decode_base64(std::string_view text) {
  std::string compact;
  compact.reserve(text.size());
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) compact.push_back(c);
  if (compact.size() % 4 != 0 || compact.size() > static_cast<std::size_t>(INT_MAX))
    return std::nullopt;
  // EVP_DecodeBlock decodes padding as zero bytes; '=' belongs only at the end.
  std::size_t padding = 0;
  while (padding < 2 && padding < compact.size() && compact[compact.size() - 1 - padding] == '=')
    ++padding;
  if (compact.find('=') < compact.size() - padding) return std::nullopt;
  std::string out(compact.size() / 4 * 3, '\0');
  const int decoded = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                      bytes_of(compact), static_cast<int>(compact.size()));
  if (decoded < 0) return std::nullopt;
  out.resize(static_cast<std::size_t>(decoded) - padding);
  return out;
}

}  // namespace gantry::support
