// Keeps a flood of identical warnings (a connection refused, one more expired)
// from becoming a flood of log lines: one line per interval, saying how many
// were left out since the last. The caller passes the time in.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace gantry::actors {

class LogThrottle {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  explicit LogThrottle(std::chrono::milliseconds interval) : interval_(interval) {}

  // Whether to log the event happening at `now`: the number of events left
  // out since the last logged one, or nullopt to leave this one out.
  std::optional<std::uint64_t> admit(TimePoint now);

 private:
  std::chrono::milliseconds interval_;
  std::optional<TimePoint> last_logged_;
  std::uint64_t left_out_ = 0;
};

}  // namespace gantry::actors
