// --log-format text|json, the same for the hub and the agents
// (support/log_format.hpp, docs/metrics.md "Log lines").
#pragma once

#include <stdexcept>
#include <string>

#include "config/command_line.hpp"
#include "support/log_format.hpp"

namespace gantry::command_line {

inline support::LogFormat log_format(const std::string& text) {
  if (text == "text") return support::LogFormat::kText;
  if (text == "json") return support::LogFormat::kJson;
  throw std::invalid_argument("expected text or json");
}

inline CLI::Option* add_log_format(CLI::App& app, support::LogFormat& target) {
  return add_read<support::LogFormat>(app, "--log-format", target, log_format,
                                      "text (default) or json: one JSON object per line, with\n"
                                      "job, cluster and dispatch where a line concerns one")
      ->type_name("text|json");
}

}  // namespace gantry::command_line
