// The bounds every answer from etcd is held to before it is parsed. etcd
// itself refuses requests over 1.5 MiB (--max-request-bytes), so one key's
// value is small, but a range over a prefix or a watch answer carrying a
// large transaction's events holds many; base64 adds a third.
#pragma once

#include <cstddef>

namespace gantry::etcd {

// One response body, or one message of a watch stream.
inline constexpr std::size_t kMaxAnswerBytes = 64u << 20;

// etcd's answers nest at most 6 deep (txn -> responses -> response_range ->
// kvs -> kv); anything deeper is not etcd.
inline constexpr std::size_t kMaxAnswerDepth = 16;

}  // namespace gantry::etcd
