#include "hub/duration.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace gantry::hub {

namespace {

[[noreturn]] void invalid(std::string_view text, const char* why) {
  throw std::invalid_argument("invalid duration \"" + std::string(text) + "\": " + why);
}

double unit_ms(std::string_view unit, std::string_view text) {
  if (unit == "ms") return 1.0;
  if (unit == "s") return 1000.0;
  if (unit == "m") return 60'000.0;
  if (unit == "h") return 3'600'000.0;
  invalid(text, "the unit must be ms, s, m or h");
}

}  // namespace

std::int64_t parse_duration_ms(std::string_view text) {
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
    if (i == unit_start) invalid(text, "a number needs a unit (ms, s, m, h)");
    double value = 0;
    try {
      std::size_t used = 0;
      value = std::stod(number, &used);
      if (used != number.size()) invalid(text, "malformed number");
    } catch (const std::logic_error&) {
      invalid(text, "malformed number");
    }
    total += value * unit_ms(text.substr(unit_start, i - unit_start), text);
  }
  // Past ~292 million years milliseconds no longer fit: llround would wrap.
  if (total >= 9.2e18) invalid(text, "too long");
  return static_cast<std::int64_t>(std::llround(total));
}

}  // namespace gantry::hub
