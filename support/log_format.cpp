#include "support/log_format.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <string>

#include "support/log_fields.hpp"

namespace gantry::support {

namespace {

// RFC 3339 in UTC with milliseconds, as log shippers parse without a pattern.
std::string rfc3339_utc_ms(spdlog::log_clock::time_point time) {
  using namespace std::chrono;
  const auto since_epoch = duration_cast<milliseconds>(time.time_since_epoch());
  const auto seconds_part = floor<seconds>(since_epoch);
  const std::time_t whole = seconds_part.count();
  std::tm utc{};
  gmtime_r(&whole, &utc);
  char text[80];  // room for any int the compiler imagines; 24 are used
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>((since_epoch - seconds_part).count()));
  return text;
}

std::string_view view(spdlog::string_view_t text) {
  return {text.data(), text.size()};
}

}  // namespace

void JsonLogFormatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
  // Ordered: ts, level and msg lead every line, as people read it.
  nlohmann::ordered_json line;
  line["ts"] = rfc3339_utc_ms(msg.time);
  line["level"] = view(spdlog::level::to_string_view(msg.level));
  line["msg"] = view(msg.payload);
  const LogFields& fields = current_log_fields();
  if (!fields.job.empty()) line["job"] = fields.job;
  if (!fields.cluster.empty()) line["cluster"] = fields.cluster;
  // A string: dispatch ids use all 64 bits, past the 2^53 a JavaScript or
  // double-based reader of JSON numbers keeps exactly.
  if (fields.dispatch) line["dispatch"] = std::to_string(*fields.dispatch);
  // Invalid UTF-8 (a name or an error text from outside) becomes U+FFFD
  // instead of throwing out of the logger.
  const std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  dest.append(text.data(), text.data() + text.size());
  dest.push_back('\n');
}

std::unique_ptr<spdlog::formatter> JsonLogFormatter::clone() const {
  return std::make_unique<JsonLogFormatter>();
}

void use_log_format(LogFormat format) {
  if (format == LogFormat::kJson) spdlog::set_formatter(std::make_unique<JsonLogFormatter>());
}

}  // namespace gantry::support
