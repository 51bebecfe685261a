#include "hub/quantity.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "hub/resources.hpp"
#include "support/text_excerpt.hpp"

namespace gantry::hub {

namespace {

struct Suffix {
  std::string_view text;
  long double factor;
};

// Kubernetes quantity suffixes: binary (Ki..Ei), decimal (n..E).
constexpr std::array<Suffix, 14> kSuffixes{{
    {"Ki", 1024.0L},
    {"Mi", 1048576.0L},
    {"Gi", 1073741824.0L},
    {"Ti", 1099511627776.0L},
    {"Pi", 1125899906842624.0L},
    {"Ei", 1152921504606846976.0L},
    {"n", 1e-9L},
    {"u", 1e-6L},
    {"m", 1e-3L},
    {"k", 1e3L},
    {"M", 1e6L},
    {"G", 1e9L},
    {"T", 1e12L},
    {"P", 1e15L},
}};

[[noreturn]] void invalid(std::string_view text, const char* why) {
  // A bounded excerpt: the text comes from outside and may be megabytes long.
  throw std::invalid_argument("invalid quantity \"" + support::text_excerpt(text) + "\": " + why);
}

// Splits "1.5Gi" into number "1.5" and suffix "Gi"; "1e3" keeps its exponent.
long double suffix_factor(std::string_view text, std::string_view& number) {
  if (text.size() >= 2 && text.back() == 'E') {
    number = text.substr(0, text.size() - 1);
    return 1e18L;
  }
  for (const Suffix& s : kSuffixes) {
    if (text.size() > s.text.size() && text.ends_with(s.text)) {
      number = text.substr(0, text.size() - s.text.size());
      return s.factor;
    }
  }
  number = text;
  return 1.0L;
}

long double parse_number(std::string_view number, std::string_view text) {
  if (number.empty()) invalid(text, "no number");
  std::size_t i = 0;
  if (number[0] == '+') i = 1;
  if (i < number.size() && number[i] == '-') invalid(text, "must not be negative");
  long double mantissa = 0;
  bool digits = false, dot = false;
  long double scale = 1;
  for (; i < number.size(); ++i) {
    const char c = number[i];
    if (c >= '0' && c <= '9') {
      digits = true;
      if (dot) {
        scale /= 10;
        mantissa += (c - '0') * scale;
      } else {
        mantissa = mantissa * 10 + (c - '0');
      }
    } else if (c == '.' && !dot) {
      dot = true;
    } else if ((c == 'e' || c == 'E') && digits) {
      break;
    } else {
      invalid(text, "unexpected character");
    }
  }
  if (!digits) invalid(text, "no digits");
  if (i < number.size()) {  // exponent
    std::string_view exponent = number.substr(i + 1);
    if (exponent.empty()) invalid(text, "empty exponent");
    int sign = 1;
    std::size_t j = 0;
    if (exponent[0] == '-' || exponent[0] == '+') {
      sign = exponent[0] == '-' ? -1 : 1;
      j = 1;
    }
    if (j >= exponent.size()) invalid(text, "empty exponent");
    int e = 0;
    for (; j < exponent.size(); ++j) {
      if (exponent[j] < '0' || exponent[j] > '9') invalid(text, "bad exponent");
      e = e * 10 + (exponent[j] - '0');
      if (e > 30) invalid(text, "exponent out of range");
    }
    mantissa *= std::pow(10.0L, sign * e);
  }
  return mantissa;
}

}  // namespace

std::int64_t parse_quantity_milli(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (text.empty()) invalid(text, "empty");
  std::string_view number;
  const long double factor = suffix_factor(text, number);
  const long double milli = std::ceil(parse_number(number, text) * factor * 1000.0L - 1e-9L);
  if (milli > static_cast<long double>(std::numeric_limits<std::int64_t>::max() / 2))
    invalid(text, "too large");
  return static_cast<std::int64_t>(milli);
}

std::string format_quantity(std::string_view resource_name, std::int64_t milli) {
  const bool negative = milli < 0;
  const std::int64_t magnitude = negative ? -milli : milli;
  std::string sign = negative ? "-" : "";
  if (magnitude % kMilli != 0) return sign + std::to_string(magnitude) + "m";
  std::int64_t whole = magnitude / kMilli;
  if (resource_name == "memory" || resource_name == "ephemeral-storage") {
    static constexpr std::array<std::string_view, 5> kBinary{"Ki", "Mi", "Gi", "Ti", "Pi"};
    std::string_view unit;
    for (std::string_view next : kBinary) {
      if (whole == 0 || whole % 1024 != 0) break;
      whole /= 1024;
      unit = next;
    }
    return sign + std::to_string(whole) + std::string(unit);
  }
  return sign + std::to_string(whole);
}

}  // namespace gantry::hub
