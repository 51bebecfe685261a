#include "hub/job.hpp"

namespace gantry::hub {

std::string_view phase_name(JobPhase phase) {
  switch (phase) {
    case JobPhase::kPending:
    case JobPhase::kDispatched:
      return protocol::phase::kPending;
    case JobPhase::kRunning:
      return protocol::phase::kRunning;
    case JobPhase::kCompleted:
      return protocol::phase::kCompleted;
    case JobPhase::kFailed:
      return protocol::phase::kFailed;
    case JobPhase::kAborted:
      return protocol::phase::kAborted;
  }
  return "Unknown";
}

bool is_terminal(JobPhase phase) {
  return phase == JobPhase::kCompleted || phase == JobPhase::kFailed || phase == JobPhase::kAborted;
}

}  // namespace gantry::hub
