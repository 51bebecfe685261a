#include "support/rfc3339.hpp"

#include <cstdio>
#include <ctime>

namespace gantry::support {

namespace {

// `micros` in [0, 1'000'000).
std::string format(std::int64_t seconds, std::int64_t micros, SecondFraction fraction) {
  const std::time_t whole = static_cast<std::time_t>(seconds);
  std::tm utc{};
  // RFC 3339 has four-digit years only.
  if (::gmtime_r(&whole, &utc) == nullptr || utc.tm_year + 1900 < 0 || utc.tm_year + 1900 > 9999)
    return "";
  char text[96];  // room for any year the compiler imagines
  int length = std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d", utc.tm_year + 1900,
                             utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec);
  const std::size_t used = static_cast<std::size_t>(length);
  if (fraction == SecondFraction::kMillis) {
    length +=
        std::snprintf(text + used, sizeof text - used, ".%03d", static_cast<int>(micros / 1000));
  } else if (fraction == SecondFraction::kMicros) {
    length += std::snprintf(text + used, sizeof text - used, ".%06d", static_cast<int>(micros));
  }
  return std::string(text, static_cast<std::size_t>(length)) + "Z";
}

}  // namespace

std::string rfc3339_utc(std::chrono::system_clock::time_point time, SecondFraction fraction) {
  const std::int64_t micros =
      std::chrono::floor<std::chrono::microseconds>(time.time_since_epoch()).count();
  std::int64_t seconds = micros / 1'000'000;
  std::int64_t part = micros % 1'000'000;
  if (part < 0) {  // the second a time before the epoch falls in is the one before
    part += 1'000'000;
    --seconds;
  }
  return format(seconds, part, fraction);
}

std::string rfc3339_utc_ms(std::int64_t unix_ms, SecondFraction fraction) {
  std::int64_t seconds = unix_ms / 1000;
  std::int64_t millis = unix_ms % 1000;
  if (millis < 0) {
    millis += 1000;
    --seconds;
  }
  return format(seconds, millis * 1000, fraction);
}

}  // namespace gantry::support
