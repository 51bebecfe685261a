// The wall clock as an RFC 3339 UTC text, to the second ("2026-11-27T09:00:00Z"):
// what the hub writes into files a person reads (the state marker, the lock).
#pragma once

#include <chrono>
#include <ctime>
#include <string>

namespace gantry::actors {

inline std::string utc_now_text() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char text[32] = {};
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace gantry::actors
