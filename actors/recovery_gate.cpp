#include "actors/recovery_gate.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace gantry::actors {

void RecoveryGate::job_back() {
  if (jobs_to_restore_ > 0) --jobs_to_restore_;
}

bool RecoveryGate::may_end(const std::function<std::vector<std::string>()>& awaited) {
  if (!grace_over_ || jobs_to_restore_ > 0) return false;
  if (limit_over_) return true;
  const std::vector<std::string> clusters = awaited();
  if (clusters.empty()) return true;
  if (!wait_logged_)
    spdlog::warn(
        "recovery waits for cluster(s) {} to report: restored jobs may still run there (at "
        "most the lost grace)",
        fmt::join(clusters, ", "));
  wait_logged_ = true;
  return false;
}

}  // namespace gantry::actors
