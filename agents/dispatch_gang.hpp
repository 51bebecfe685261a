// The part of a dispatch this cluster must run, as the gang shape the core's
// placer understands.
#pragma once

#include <cstdint>
#include <vector>

#include "hub/gang.hpp"
#include "protocol/messages.hpp"

namespace gantry::agents {

struct DispatchGang {
  hub::GangShape shape;
  // For each shape task, its index in JobSpec::tasks (tasks with no replicas
  // here are left out of the shape).
  std::vector<std::uint32_t> job_task;
};

// Per task in spec order: task_replicas[task] replicas of the sum of its
// containers' requests and its node selector; min_available is the job's,
// capped to the replicas here (0 = all). Throws hub::FieldError naming the
// dispatch field when the dispatch is malformed.
DispatchGang gang_for_dispatch(const protocol::Dispatch& dispatch);

}  // namespace gantry::agents
