#include "console/duration.hpp"

#include <stdexcept>

namespace gantry::console {

namespace {

// A century: far beyond any sensible timeout, far below int64 overflow.
constexpr long double kMaxMilliseconds = 100.0L * 365 * 24 * 3600 * 1000;

[[noreturn]] void invalid(std::string_view text, const std::string& why) {
  throw std::invalid_argument("invalid duration \"" + std::string(text) + "\": " + why +
                              " (use e.g. 30s, 2m, 500ms, 1h30m)");
}

// Reads "<digits>[.<digits>]" at `pos`; advances `pos`.
long double read_number(std::string_view text, std::size_t& pos) {
  long double value = 0;
  bool digits = false;
  while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
    value = value * 10 + (text[pos++] - '0');
    digits = true;
    if (value > kMaxMilliseconds) invalid(text, "too large");
  }
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    long double scale = 0.1L;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      value += (text[pos++] - '0') * scale;
      scale /= 10;
      digits = true;
    }
  }
  if (!digits) invalid(text, "expected a number at position " + std::to_string(pos + 1));
  return value;
}

// Reads a unit at `pos` and returns its length in milliseconds; advances `pos`.
long double read_unit(std::string_view text, std::size_t& pos) {
  const std::string_view rest = text.substr(pos);
  if (rest.starts_with("ms")) {
    pos += 2;
    return 1.0L;
  }
  if (rest.starts_with("s")) {
    pos += 1;
    return 1000.0L;
  }
  if (rest.starts_with("m")) {
    pos += 1;
    return 60.0L * 1000;
  }
  if (rest.starts_with("h")) {
    pos += 1;
    return 3600.0L * 1000;
  }
  if (rest.starts_with("d")) {  // as format_age prints them: "7d"
    pos += 1;
    return 24.0L * 3600 * 1000;
  }
  if (rest.empty()) invalid(text, "missing unit");
  invalid(text, "unknown unit \"" + std::string(rest) + "\"");
}

}  // namespace

std::chrono::milliseconds parse_duration(std::string_view text) {
  if (text.empty()) invalid(text, "empty");
  long double total = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const long double number = read_number(text, pos);
    total += number * read_unit(text, pos);
    if (total > kMaxMilliseconds) invalid(text, "too large");
  }
  return std::chrono::milliseconds(static_cast<std::int64_t>(total + 0.5L));
}

std::string format_duration(std::chrono::milliseconds duration) {
  const std::int64_t ms = duration.count() < 0 ? 0 : duration.count();  // only timeouts come here
  if (ms < 1000) return std::to_string(ms) + "ms";
  if (ms % 1000 != 0 && ms < 60 * 1000) {
    std::string fraction = std::to_string(ms % 1000);
    fraction.insert(0, 3 - fraction.size(), '0');
    while (fraction.back() == '0') fraction.pop_back();
    return std::to_string(ms / 1000) + "." + fraction + "s";
  }
  std::int64_t seconds = ms / 1000;  // sub-second rests beyond a minute do not matter to people
  const std::int64_t hours = seconds / 3600;
  const std::int64_t minutes = seconds / 60 % 60;
  seconds %= 60;
  std::string text;
  if (hours > 0) text += std::to_string(hours) + "h";
  if (minutes > 0) text += std::to_string(minutes) + "m";
  if (seconds > 0) text += std::to_string(seconds) + "s";
  return text;
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
