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
    case JobPhase::kRestarting:
      return protocol::phase::kRestarting;
    case JobPhase::kCompleting:
      return protocol::phase::kCompleting;
    case JobPhase::kAborting:
      return protocol::phase::kAborting;
    case JobPhase::kTerminating:
      return protocol::phase::kTerminating;
    case JobPhase::kTerminated:
      return protocol::phase::kTerminated;
  }
  return "Unknown";
}

bool is_terminal(JobPhase phase) {
  return phase == JobPhase::kCompleted || phase == JobPhase::kFailed ||
         phase == JobPhase::kAborted || phase == JobPhase::kTerminated;
}

bool is_stopping_for_policy(JobPhase phase) {
  return phase == JobPhase::kRestarting || phase == JobPhase::kCompleting ||
         phase == JobPhase::kAborting || phase == JobPhase::kTerminating;
}

bool min_success_met(const Job& job) {
  if (!job.policies || job.policies->min_success() <= 0) return false;
  std::int32_t succeeded = 0;
  for (const protocol::TaskStatus& task : job.tasks) succeeded += task.succeeded;
  return succeeded >= job.policies->min_success();
}

}  // namespace gantry::hub
