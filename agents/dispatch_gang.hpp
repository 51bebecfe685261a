// The part of a dispatch this cluster is asked to prepare, as the gang shape
// the core's placer understands, and where the part sits in the whole gang.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "agents/dispatch_run.hpp"
#include "hub/gang.hpp"
#include "hub/topology.hpp"
#include "protocol/messages.hpp"

namespace gantry::agents {

struct DispatchGang {
  hub::GangShape shape;
  // For each shape task, its index in JobSpec::tasks (tasks with no replicas
  // here are left out of the shape).
  std::vector<std::uint32_t> job_task;
  // The hub's topology tiers when the part keeps the job's network-topology
  // and partition constraints (a whole gang sent with them); else none, and
  // the shape has no topology.
  std::optional<hub::TopologyTiers> tiers;
};

// Per task in spec order: task_replicas[task] replicas of the task as the hub
// resolved it and sent it in Prepare::gang (requests, node selector,
// tolerations; its topology and partitions only for a whole gang whose Prepare
// carries the hub's topology tier labels: a part of a split is placed by whole
// replicas, the hub keeps hard-topology gangs whole). A part of a split gang
// must start every replica it was given (the other parts count on their
// ranks); a whole gang (parts = 1) needs the gang's min_available, capped to
// its replicas. Throws hub::FieldError naming the field when the Prepare is
// malformed or its gang does not list the job's tasks in order.
DispatchGang gang_for_part(const protocol::Prepare& prepare);

// The Prepare's part, parts, epoch, rank_offset, world_size and time limit, checked.
// Throws hub::FieldError naming the field when they cannot describe a part.
PartPlan part_plan(const protocol::Prepare& prepare);

}  // namespace gantry::agents
