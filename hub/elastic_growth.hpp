// The elastic growth stage (docs/elastic.md): after every pending job had its
// turn, each running elastic job below its replica count grows on its last
// part's cluster by as many of the missing replicas as fit there and its
// queue's limits allow. The agent is asked to start them (a Resize); until it
// answers they are held by the hub and charged to the queue.
#pragma once

#include <cstdint>

#include "hub/dispatch.hpp"
#include "hub/gang.hpp"
#include "hub/resources.hpp"

namespace gantry::hub {

class PassSession;

void grow_elastic(PassSession& session);

// The replicas of `gang` the dispatch does not run, as a gang that takes as
// many as fit (min_available 1).
GangShape missing_replicas(const Dispatch& dispatch, const GangShape& gang);

// Whether one replica of some missing task fits in `free` (a cluster's free
// total): the quick test before a node-level fit.
bool any_missing_replica_fits(const Dispatch& dispatch, const GangShape& gang,
                              const ResourceVector& free);

}  // namespace gantry::hub
