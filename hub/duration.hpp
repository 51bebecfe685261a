// Go-style durations as Volcano and Kubernetes write them: "90s", "30m",
// "1h30m", "500ms", "2.5h".
#pragma once

#include <cstdint>
#include <string_view>

namespace gantry::hub {

// Milliseconds. Throws std::invalid_argument naming the text when it is not
// a non-negative duration with a unit (ms, s, m, h), or is too long for
// milliseconds in 64 bits.
std::int64_t parse_duration_ms(std::string_view text);

}  // namespace gantry::hub
