#include "console/job_phase.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "console/arguments.hpp"
#include "protocol/messages.hpp"

namespace gantry::console {

std::string canonical_job_phase(const std::string& flag, const std::string& wanted) {
  static constexpr std::array kPhases{protocol::phase::kPending,    protocol::phase::kRunning,
                                      protocol::phase::kRestarting, protocol::phase::kCompleting,
                                      protocol::phase::kAborting,   protocol::phase::kTerminating,
                                      protocol::phase::kCompleted,  protocol::phase::kFailed,
                                      protocol::phase::kAborted,    protocol::phase::kTerminated};
  const auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
  };
  for (const char* phase : kPhases) {
    if (lower(phase) == lower(wanted)) return phase;
  }
  throw UsageError(flag + ": unknown phase \"" + wanted +
                   "\" (expected Pending, Running, Restarting, Completing, Aborting, "
                   "Terminating, Completed, Failed, Aborted or Terminated)");
}

}  // namespace gantry::console
