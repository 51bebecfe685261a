#include "support/log_format.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <string>

#include "support/log_fields.hpp"
#include "support/rfc3339.hpp"

namespace gantry::support {

namespace {

std::string_view view(spdlog::string_view_t text) {
  return {text.data(), text.size()};
}

}  // namespace

void JsonLogFormatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
  // Ordered: ts, level and msg lead every line, as people read it.
  nlohmann::ordered_json line;
  line["ts"] = rfc3339_utc(msg.time, SecondFraction::kMillis);  // as log shippers parse it
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
