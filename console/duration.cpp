#include "console/duration.hpp"

#include <stdexcept>

#include "hub/duration.hpp"

namespace gantry::console {

namespace {

// A century: far beyond any sensible timeout, far below int64 overflow.
constexpr std::int64_t kMaxMilliseconds = 100LL * 365 * 24 * 3600 * 1000;
constexpr const char* kExamples = " (use e.g. 30s, 2m, 500ms, 1h30m, 7d)";

}  // namespace

std::chrono::milliseconds parse_duration(std::string_view text) {
  std::int64_t ms = 0;
  try {
    ms = hub::parse_duration_ms(text, hub::DurationUnits::kGoAndDays);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(e.what() + std::string(kExamples));
  }
  if (ms > kMaxMilliseconds)
    throw std::invalid_argument("invalid duration \"" + std::string(text) +
                                "\": more than a century" + kExamples);
  return std::chrono::milliseconds(ms);
}

std::string format_age(std::int64_t age_ms) {
  const std::int64_t seconds = age_ms < 0 ? 0 : age_ms / 1000;
  const std::int64_t minutes = seconds / 60;
  const std::int64_t hours = minutes / 60;
  const std::int64_t days = hours / 24;
  const auto pair = [](std::int64_t a, const char* ua, std::int64_t b, const char* ub) {
    return std::to_string(a) + ua + (b == 0 ? "" : std::to_string(b) + ub);
  };
  if (seconds < 120) return std::to_string(seconds) + "s";
  if (minutes < 10) return pair(minutes, "m", seconds % 60, "s");
  if (hours < 3) return std::to_string(minutes) + "m";
  if (hours < 8) return pair(hours, "h", minutes % 60, "m");
  if (hours < 48) return std::to_string(hours) + "h";
  if (days < 8) return pair(days, "d", hours % 24, "h");
  if (days < 365 * 2) return std::to_string(days) + "d";
  return pair(days / 365, "y", days % 365, "d");
}

}  // namespace gantry::console
