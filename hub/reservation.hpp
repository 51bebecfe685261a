// Backfill reservations (EASY backfill, as Slurm's sched/backfill): a job that
// cannot start now gets a planned start and planned nodes, computed from the
// time limits of what runs; other jobs may start ahead of it only where they
// cannot delay it.
//
// Per reserved node the core keeps `raw` = what the plan needs there minus
// what running jobs will have freed there by the planned start. Jobs that may
// still run at the planned start must leave max(0, raw) of the node's free
// resources alone: that much is taken out of the node (`held`) for the rest of
// the pass. A job that ends before the planned start may use it (the hold is
// lent to it), and its own end then counts as freed in time: raw shrinks by
// what it took there.
#pragma once

#include <cstdint>
#include <vector>

#include "hub/cluster_state.hpp"
#include "hub/job.hpp"
#include "hub/resources.hpp"

namespace gantry::hub {

struct ReservedNode {
  NodeIndex node = 0;
  ResourceVector planned;  // what the reserved job takes here at its start
  ResourceVector raw;      // planned - freed by the start (components may be negative)
  ResourceVector held;     // max(0, raw): taken out of the node while not lent
};

struct Reservation {
  JobId job = 0;
  ClusterIndex cluster = kNoCluster;
  TimeMs start = kNever;
  std::vector<ReservedNode> nodes;
  bool lent = false;  // its holds are given back for the job being placed

  // What the reserved job still expects from running jobs' ends on `node`
  // (planned - held), which a later reservation may not plan on.
  ResourceVector claim_on(NodeIndex node) const;
};

}  // namespace gantry::hub
