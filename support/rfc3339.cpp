#include "support/rfc3339.hpp"

#include <charconv>
#include <ctime>

namespace gantry::support {

namespace {

// Number of `digits` decimal digits at text[at]; false when they are not.
bool read_digits(const std::string& text, std::size_t at, std::size_t digits, int& out) {
  if (at + digits > text.size()) return false;
  const char* first = text.data() + at;
  const auto [end, error] = std::from_chars(first, first + digits, out);
  return error == std::errc() && end == first + digits;
}

bool separator_at(const std::string& text, std::size_t at, char expected) {
  return at < text.size() && text[at] == expected;
}

// Fractional seconds after the '.' at text[at], as microseconds (digits
// beyond the sixth are dropped); `at` moves past them.
bool read_fraction(const std::string& text, std::size_t& at, std::int64_t& micros) {
  micros = 0;
  if (!separator_at(text, at, '.')) return true;
  std::size_t digits = 0;
  for (++at; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, ++digits) {
    if (digits < 6) micros = micros * 10 + (text[at] - '0');
  }
  for (std::size_t d = digits; d < 6; ++d) micros *= 10;
  return digits > 0;
}

// "Z" or "+hh:mm" / "-hh:mm" ending the text, as seconds east of UTC.
bool read_offset(const std::string& text, std::size_t at, int& offset_s) {
  offset_s = 0;
  if (text.size() == at + 1 && (text[at] == 'Z' || text[at] == 'z')) return true;
  if (text.size() != at + 6 || (text[at] != '+' && text[at] != '-')) return false;
  int hours = 0, minutes = 0;
  if (!read_digits(text, at + 1, 2, hours) || !separator_at(text, at + 3, ':') ||
      !read_digits(text, at + 4, 2, minutes)) {
    return false;
  }
  offset_s = (text[at] == '-' ? -1 : 1) * (hours * 3600 + minutes * 60);
  return true;
}

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

// "YYYY-MM-DDTHH:MM:SS[.fraction](Z|+hh:mm|-hh:mm)"; digits beyond the
// sixth of the fraction are dropped.
std::optional<std::chrono::system_clock::time_point> parse_rfc3339(const std::string& text) {
  std::tm utc{};
  std::size_t at = 19;  // after "YYYY-MM-DDTHH:MM:SS"
  std::int64_t micros = 0;
  int offset_s = 0;
  const bool parsed = read_digits(text, 0, 4, utc.tm_year) && separator_at(text, 4, '-') &&
                      read_digits(text, 5, 2, utc.tm_mon) && separator_at(text, 7, '-') &&
                      read_digits(text, 8, 2, utc.tm_mday) &&
                      (separator_at(text, 10, 'T') || separator_at(text, 10, 't')) &&
                      read_digits(text, 11, 2, utc.tm_hour) && separator_at(text, 13, ':') &&
                      read_digits(text, 14, 2, utc.tm_min) && separator_at(text, 16, ':') &&
                      read_digits(text, 17, 2, utc.tm_sec) && read_fraction(text, at, micros) &&
                      read_offset(text, at, offset_s);
  if (!parsed) return std::nullopt;
  utc.tm_year -= 1900;
  utc.tm_mon -= 1;
  const std::time_t seconds = ::timegm(&utc) - offset_s;
  return std::chrono::system_clock::time_point(std::chrono::seconds(seconds)) +
         std::chrono::microseconds(micros);
}

}  // namespace gantry::support
