// Durations on the command line ("30s", "2m", "500ms", "1m30s") and the short
// human forms gantryctl prints (AGE column, timeout messages).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace gantry::console {

// Parses one or more <number><unit> terms, unit ms | s | m | h | d, e.g.
// "1.5s", "1h30m", "7d". Throws std::invalid_argument naming the text when it is not one.
std::chrono::milliseconds parse_duration(std::string_view text);

// Inverse of parse_duration for messages: 5000 -> "5s", 500 -> "500ms",
// 90000 -> "1m30s", 1500 -> "1.5s".
std::string format_duration(std::chrono::milliseconds duration);

// kubectl-style age: "45s", "3m20s", "17m", "5h", "3d". Negative ages (clock
// skew between hub and console) show as "0s".
std::string format_age(std::int64_t age_ms);

}  // namespace gantry::console
