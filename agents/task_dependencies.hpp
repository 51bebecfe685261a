// spec.tasks[].dependsOn on one agent's part of a dispatch: which tasks may
// start their replicas, given how many replicas of each task run here. Pure
// bookkeeping; the agent core asks it before each start (docs/plugins.md).
#pragma once

#include <cstdint>
#include <vector>

#include "agents/dispatch_run.hpp"
#include "protocol/messages.hpp"

namespace gantry::agents {

class TaskStartGate {
 public:
  // `replicas`: this part's replicas (RunReplica::task indexes job.tasks).
  TaskStartGate(const protocol::JobSpec& job, const std::vector<RunReplica>& replicas);

  // Whether `task`'s replicas may start: every task it names has every
  // replica of this part running (iteration "all", the default), or one
  // named task has (iteration "any"). A named task with no replica in this
  // part runs in another part, where this agent cannot see it: it counts as
  // running. A task that names none may always start.
  bool may_start(std::uint32_t task) const;
  // One more replica of `task` runs.
  void running(std::uint32_t task);

 private:
  bool task_running(std::uint32_t task) const;

  std::vector<std::vector<std::uint32_t>> depends_on_;  // per task, the tasks it names
  std::vector<bool> any_;                               // per task: iteration "any"
  std::vector<std::int32_t> placed_;                    // per task, replicas in this part
  std::vector<std::int32_t> running_;
};

}  // namespace gantry::agents
