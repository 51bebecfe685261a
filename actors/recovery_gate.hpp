// When a restarted hub may place restored jobs again (docs/wire-flow.md, "Hub
// restart"): once every job the store brought back has arrived, the recovery
// grace is over, and every cluster that held a committed part of a restored
// job has reported, or the lost grace ran out (an agent cut off that long has
// stopped its runs: self-fencing). Before that a job could be placed again
// while it still runs where it was. The scheduler actor feeds it; it counts
// and decides, the reconciler ends the recovery.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace gantry::actors {

class RecoveryGate {
 public:
  explicit RecoveryGate(std::size_t jobs_to_restore = 0) : jobs_to_restore_(jobs_to_restore) {}

  // A stored job is back in the core, or was dropped (it will not come).
  void job_back();
  void grace_over() { grace_over_ = true; }
  // The lost grace ran out: clusters that have not reported are not waited for.
  void limit_over() { limit_over_ = true; }

  // Whether recovery may end now. `awaited` lists the clusters that have not
  // reported; it is asked only once every job is back and the grace is over.
  // The first time the gate waits for clusters it logs which.
  bool may_end(const std::function<std::vector<std::string>()>& awaited);

 private:
  std::size_t jobs_to_restore_;
  bool grace_over_ = false;
  bool limit_over_ = false;
  bool wait_logged_ = false;
};

}  // namespace gantry::actors
