// The reports' JSON spellings, so that the same figures always give the same
// bytes.
#pragma once

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace gantry::sim {

// Keys stay in the order the reports add them.
using Json = nlohmann::ordered_json;

// A figure in an exact form: whole values as integers ("55", not
// nlohmann's "55.0"), others as text that reads back exactly (nlohmann's
// Grisu2: now and then one digit longer than the shortest).
inline Json json_number(double value) {
  constexpr double kExactIntegers = 9007199254740992.0;  // 2^53
  if (std::trunc(value) == value && std::fabs(value) < kExactIntegers)
    return static_cast<std::int64_t>(value);
  return value;
}

// One line of compact JSON; names come from file names, so bytes that are not
// UTF-8 are replaced rather than refused.
inline std::string json_text(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace gantry::sim
