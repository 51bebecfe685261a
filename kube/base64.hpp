// Standard base64 (RFC 4648, with padding) as kubeconfig "-data" fields and
// etcd's JSON gateway (keys and values) use it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gantry::kube {

// The decoded bytes, or nullopt when `text` is not valid base64. Whitespace
// (line breaks in hand-written files) is skipped.
std::optional<std::string> decode_base64(std::string_view text);

// Any bytes as base64 with padding, no line breaks.
std::string encode_base64(std::string_view bytes);

}  // namespace gantry::kube
