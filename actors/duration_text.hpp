// A duration written as the hub's flags take it ("500ms", "10s", "2m"), for
// messages that name a limit.
#pragma once

#include <cstdint>
#include <string>

namespace gantry::actors {

inline std::string duration_text(std::int64_t ms) {
  if (ms != 0 && ms % 60'000 == 0) return std::to_string(ms / 60'000) + "m";
  if (ms != 0 && ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
  return std::to_string(ms) + "ms";
}

}  // namespace gantry::actors
