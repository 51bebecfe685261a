// How the programs write their log lines (--log-format): spdlog's text, or
// one JSON object per line for log shippers (Loki, Elasticsearch, Cloud
// Logging): {"ts":"2026-01-02T03:04:05.678Z","level":"info","msg":"...",
// "job":"...","cluster":"...","dispatch":"7"}, the last three only inside a
// support::LogScope that sets them (support/log_fields.hpp).
#pragma once

#include <spdlog/formatter.h>

#include <memory>

namespace gantry::support {

enum class LogFormat { kText, kJson };

class JsonLogFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override;
};

// Sets the format of every registered logger and of those made later.
// kText keeps spdlog's default pattern untouched.
void use_log_format(LogFormat format);

}  // namespace gantry::support
