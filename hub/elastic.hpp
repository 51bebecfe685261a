// Elastic jobs, Volcano's semantics: a job whose minAvailable is below its
// replica count starts once minAvailable replicas fit, with as many as fit
// then; grows toward the full count as capacity frees (after every pending
// job had its turn in a pass); and gives up its replicas above minAvailable,
// highest index first, before any whole gang is evicted for reclaim or
// preemption. The core's side is in elastic.cpp (SchedulerCore members) and
// the growth stage of a pass in elastic_growth.cpp; the wire step is Resize /
// Resized (protocol/messages.hpp); docs/elastic.md.
#pragma once

#include <cstdint>

#include "hub/gang.hpp"
#include "hub/queue_tree.hpp"
#include "hub/resources.hpp"

namespace gantry::hub {

// minAvailable below the replica count.
inline bool is_elastic(const GangShape& gang) {
  return gang.min_available < gang.total_replicas();
}

// Whether `amount` more may run for a job of `queue`: within the capability of
// the queue and its ancestors, and not on what other queues are guaranteed.
bool within_queue_limits(const QueueTree& queues, QueueIndex queue, const ResourceVector& amount,
                         const ResourceVector& pool_free);

}  // namespace gantry::hub
