#include "hub/duration.hpp"

#include <cmath>
#include <stdexcept>

namespace gantry::hub {

namespace {

[[noreturn]] void invalid(std::string_view text, const char* why) {
  throw std::invalid_argument("invalid duration \"" + std::string(text) + "\": " + why);
}

double unit_ms(std::string_view unit, std::string_view text, DurationUnits units) {
  if (unit == "ms") return 1.0;
  if (unit == "s") return 1000.0;
  if (unit == "m") return 60'000.0;
  if (unit == "h") return 3'600'000.0;
  if (units == DurationUnits::kGo) invalid(text, "the unit must be ms, s, m or h");
  if (unit == "d") return 86'400'000.0;
  invalid(text, "the unit must be ms, s, m, h or d");
}

const char* units_hint(DurationUnits units) {
  return units == DurationUnits::kGo ? "a number needs a unit (ms, s, m, h)"
                                     : "a number needs a unit (ms, s, m, h, d)";
}

}  // namespace

std::int64_t parse_duration_ms(std::string_view text, DurationUnits units) {
  if (text.empty()) invalid(text, "empty");
  double total = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t number_start = i;
    while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
    if (i == number_start) invalid(text, "expected a number");
    const std::string number(text.substr(number_start, i - number_start));
    const std::size_t unit_start = i;
    while (i < text.size() && text[i] >= 'a' && text[i] <= 'z') ++i;
    if (i == unit_start) invalid(text, units_hint(units));
    double value = 0;
    try {
      std::size_t used = 0;
      value = std::stod(number, &used);
      if (used != number.size()) invalid(text, "malformed number");
    } catch (const std::logic_error&) {
      invalid(text, "malformed number");
    }
    total += value * unit_ms(text.substr(unit_start, i - unit_start), text, units);
  }
  // Past ~292 million years milliseconds no longer fit: llround would wrap.
  if (total >= 9.2e18) invalid(text, "too long");
  return static_cast<std::int64_t>(std::llround(total));
}

std::string format_duration(std::int64_t ms) {
  if (ms <= 0) return "0s";
  if (ms < 1000) return std::to_string(ms) + "ms";
  std::string text;
  if (const std::int64_t hours = ms / 3'600'000) text += std::to_string(hours) + "h";
  if (const std::int64_t minutes = ms / 60'000 % 60) text += std::to_string(minutes) + "m";
  const std::int64_t seconds = ms / 1000 % 60;
  const std::int64_t millis = ms % 1000;
  if (seconds == 0 && millis == 0) return text;
  text += std::to_string(seconds);
  if (millis != 0) {
    std::string fraction = std::to_string(millis);
    fraction.insert(0, 3 - fraction.size(), '0');
    while (fraction.back() == '0') fraction.pop_back();
    text += "." + fraction;
  }
  return text + "s";
}

}  // namespace gantry::hub
