// The wall clock as an RFC 3339 UTC text, to the second ("2026-11-27T09:00:00Z"):
// what the hub writes into files a person reads (the state marker, the lock).
#pragma once

#include <chrono>
#include <string>

#include "support/rfc3339.hpp"

namespace gantry::actors {

inline std::string utc_now_text() {
  return support::rfc3339_utc(std::chrono::system_clock::now(), support::SecondFraction::kNone);
}

}  // namespace gantry::actors
