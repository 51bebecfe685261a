// Durations, read and written one way everywhere: Go's grammar as Volcano and
// Kubernetes write them ("90s", "30m", "1h30m", "500ms", "2.5h"), and one
// writer whose text the reader reads back exactly.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gantry::hub {

// Go's units (ms, s, m, h) for manifests and the daemons' flags, which other
// tools (Volcano, kubectl) read too; gantryctl also takes days ("7d"), as it
// prints ages.
enum class DurationUnits { kGo, kGoAndDays };

// Milliseconds. Throws std::invalid_argument naming the text when it is not
// a non-negative duration with a unit, or is too long for milliseconds in 64
// bits.
std::int64_t parse_duration_ms(std::string_view text, DurationUnits units = DurationUnits::kGo);

// "1h30m", "45.25s", "500ms", "0s" (for 0 and below): hours and minutes,
// then seconds with their fraction; exact, and parse_duration_ms reads it back.
std::string format_duration(std::int64_t ms);

}  // namespace gantry::hub
