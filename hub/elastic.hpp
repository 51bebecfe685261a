// Elastic jobs, Volcano's semantics: a job whose minAvailable is below its
// replica count starts once minAvailable replicas fit, with as many as fit
// then; grows toward the full count as capacity frees (after every pending
// job had its turn in a pass); and gives up its replicas above minAvailable,
// highest index first, before any whole gang is evicted for reclaim or
// preemption. The core's side is in elastic.cpp (SchedulerCore members) and
// the growth stage of a pass in elastic_growth.cpp; the wire step is Resize /
// Resized (protocol/messages.hpp); docs/elastic.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hub/cluster_state.hpp"
#include "hub/gang.hpp"
#include "hub/placement.hpp"
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

// An elastic job's replicas `placed` on `cluster` (a start, a growth) cost its
// queue their requests; while `within_limits(cost)` says the queue may not
// run that much, the replica placed last goes back to its node, down to
// `keep_at_least` replicas. Returns what the kept replicas cost.
template <class WithinLimits>
ResourceVector give_back_over_limits(ClusterState& cluster, const GangShape& gang,
                                     std::vector<NodeAssignment>& placed, std::size_t keep_at_least,
                                     WithinLimits within_limits) {
  ResourceVector cost;
  for (const NodeAssignment& entry : placed) cost += gang.tasks[entry.task].per_replica;
  while (placed.size() > keep_at_least && !within_limits(cost)) {
    const NodeAssignment& entry = placed.back();
    cluster.give(entry.node, entry.amount);
    cost -= gang.tasks[entry.task].per_replica;
    placed.pop_back();
  }
  return cost;
}

}  // namespace gantry::hub
