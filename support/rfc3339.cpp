#include "support/rfc3339.hpp"

#include <ctime>

namespace gantry::support {

namespace {

// `value` as exactly `width` digits (it has no more).
char* put_digits(char* out, std::int64_t value, int width) {
  for (int i = width - 1; i >= 0; --i, value /= 10) out[i] = static_cast<char>('0' + value % 10);
  return out + width;
}

// `micros` in [0, 1'000'000). Digits put by hand: every job event is stamped,
// and snprintf's six conversions cost twice strftime's whole text.
std::string format(std::int64_t seconds, std::int64_t micros, SecondFraction fraction) {
  const std::time_t whole = static_cast<std::time_t>(seconds);
  std::tm utc{};
  // RFC 3339 has four-digit years only.
  if (::gmtime_r(&whole, &utc) == nullptr || utc.tm_year + 1900 < 0 || utc.tm_year + 1900 > 9999)
    return "";
  char text[32];  // "YYYY-MM-DDTHH:MM:SS.uuuuuuZ" is 27
  char* out = put_digits(text, utc.tm_year + 1900, 4);
  *out++ = '-';
  out = put_digits(out, utc.tm_mon + 1, 2);
  *out++ = '-';
  out = put_digits(out, utc.tm_mday, 2);
  *out++ = 'T';
  out = put_digits(out, utc.tm_hour, 2);
  *out++ = ':';
  out = put_digits(out, utc.tm_min, 2);
  *out++ = ':';
  out = put_digits(out, utc.tm_sec, 2);
  if (fraction == SecondFraction::kMillis) {
    *out++ = '.';
    out = put_digits(out, micros / 1000, 3);
  } else if (fraction == SecondFraction::kMicros) {
    *out++ = '.';
    out = put_digits(out, micros, 6);
  }
  *out++ = 'Z';
  return std::string(text, out);
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
