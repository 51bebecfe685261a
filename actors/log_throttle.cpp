#include "actors/log_throttle.hpp"

namespace gantry::actors {

std::optional<std::uint64_t> LogThrottle::admit(TimePoint now) {
  if (last_logged_ && now - *last_logged_ < interval_) {
    ++left_out_;
    return std::nullopt;
  }
  last_logged_ = now;
  const std::uint64_t left_out = left_out_;
  left_out_ = 0;
  return left_out;
}

}  // namespace gantry::actors
