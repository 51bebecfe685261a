// The one way Gantry parses JSON that came from outside (the Karmada webhook's
// AdmissionReview, ResourceBindings and workloads, Kubernetes API responses),
// and the one way an error message quotes JSON. nlohmann parses iteratively,
// but dump(), our readers and the error paths recurse: the 200 KB
// AdmissionReview of 100,000 nested arrays killed the hub with SIGSEGV in the
// dump() of an error message. Depth is checked on the text first (one linear
// scan, no recursion), then the text is parsed.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "config/input_limits.hpp"

namespace gantry::config {

// Throws hub::FieldError naming `what` ("AdmissionReview", "response body")
// with the limit when the text nests deeper than max_depth, and with a bounded
// excerpt of nlohmann's message when it is not JSON.
nlohmann::json parse_bounded_json(std::string_view text, std::string_view what,
                                  std::size_t max_depth = kMaxJsonDepth);

// For readers that treat bad input as "no value": a discarded value (see
// nlohmann::json::is_discarded) when the text is not JSON or nests too deep.
nlohmann::json parse_bounded_json_or_discarded(std::string_view text,
                                               std::size_t max_depth = kMaxJsonDepth);

// The byte offset where `text` first opens a level deeper than max_depth, or
// std::string_view::npos. Brackets inside strings do not count.
std::size_t json_depth_violation(std::string_view text, std::size_t max_depth);

// At most about max_bytes of `value` as compact JSON for an error message,
// never descending further than kMaxJsonDepth and never dumping more than it
// shows (a huge value costs no more than its excerpt).
std::string json_excerpt(const nlohmann::json& value,
                         std::size_t max_bytes = kMaxErrorExcerptBytes);

}  // namespace gantry::config
