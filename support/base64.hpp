// Standard base64 (RFC 4648, with padding), as kubeconfig "-data" fields,
// admission webhook patches and etcd's JSON gateway use it; OpenSSL's
// EVP_EncodeBlock / EVP_DecodeBlock underneath.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gantry::support {

// Any bytes, with padding and no line breaks.
std::string encode_base64(std::string_view bytes);

// The decoded bytes, or nullopt when `text` is not valid base64. Whitespace
// (line breaks in hand-written files) is skipped.
std::optional<std::string> decode_base64(std::string_view text);

}  // namespace gantry::support
