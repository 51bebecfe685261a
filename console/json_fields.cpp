#include "console/json_fields.hpp"

#include <cstdio>
#include <ctime>

#include "console/units.hpp"

namespace gantry::console {

void write_resources(JsonWriter& json, const protocol::ResourceList& resources) {
  json.begin_object();
  for (const auto& [name, milli] : resources) json.key(name).decimal(milli_to_decimal(milli));
  json.end_object();
}

void write_labels(JsonWriter& json, const protocol::Labels& labels) {
  json.begin_object();
  for (const auto& [key, value] : labels) json.key(key).string(value);
  json.end_object();
}

void write_strings(JsonWriter& json, const std::vector<std::string>& strings) {
  json.begin_array();
  for (const auto& text : strings) json.string(text);
  json.end_array();
}

void write_timestamp(JsonWriter& json, std::int64_t unix_ms) {
  if (unix_ms == 0) {
    json.null();
  } else {
    json.string(format_timestamp(unix_ms));
  }
}

std::string format_timestamp(std::int64_t unix_ms) {
  if (unix_ms == 0) return "";
  // Floor division keeps pre-1970 values (never expected, but possible on the wire) correct.
  std::int64_t seconds = unix_ms / 1000;
  std::int64_t millis = unix_ms % 1000;
  if (millis < 0) {
    millis += 1000;
    seconds -= 1;
  }
  const std::time_t time = static_cast<std::time_t>(seconds);
  std::tm utc{};
  if (gmtime_r(&time, &utc) == nullptr) return std::to_string(unix_ms) + "ms";
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(millis));
  return text;
}

}  // namespace gantry::console
