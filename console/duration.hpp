// Durations on gantryctl's command line ("30s", "2m", "500ms", "1m30s", "7d")
// and the kubectl-style ages it prints. Durations are written with
// hub::format_duration (hub/duration.hpp), the one writer.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace gantry::console {

// hub::parse_duration_ms with days, as format_age prints them, and at most a
// century (a timeout or --since beyond it is a typo, and overflows clocks).
// Throws std::invalid_argument naming the text and showing examples.
std::chrono::milliseconds parse_duration(std::string_view text);

// kubectl-style age: "45s", "3m20s", "17m", "5h", "3d". Negative ages (clock
// skew between hub and console) show as "0s".
std::string format_age(std::int64_t age_ms);

}  // namespace gantry::console
