// Go-style durations ("1h30m", "500ms", "2.5h") from Volcano policies, queue
// annotations and time limits: either a non-negative count of milliseconds or
// std::invalid_argument, never an overflow (UBSan) or a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "hub/duration.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    if (gantry::hub::parse_duration_ms(text) < 0) std::abort();
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
