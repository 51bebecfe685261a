// Times as RFC 3339 text in UTC ("2024-05-01T08:00:00.123Z"), the one way
// every part of Gantry writes them: state files, events, JSON log lines,
// gantryctl's JSON, Kubernetes Lease and OCM fields; and the one way it reads
// them (a Lease's times, an exec credential's expiry).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace gantry::support {

// What follows the seconds: nothing, ".mmm" or ".uuuuuu" (floored, never rounded up).
enum class SecondFraction { kNone, kMillis, kMicros };

// `time` in UTC; "" for a time outside years 0000-9999.
std::string rfc3339_utc(std::chrono::system_clock::time_point time, SecondFraction fraction);
// The same for `unix_ms` milliseconds since the epoch (before it: negative).
std::string rfc3339_utc_ms(std::int64_t unix_ms, SecondFraction fraction = SecondFraction::kMillis);

// RFC 3339 text with any offset ("Z", "+02:00"), fractions to the
// microsecond; nullopt when it is not one.
std::optional<std::chrono::system_clock::time_point> parse_rfc3339(const std::string& text);

}  // namespace gantry::support
