// The victims of an eviction on one cluster: see victim_search.hpp.
#include "hub/victim_search.hpp"

#include <utility>

namespace gantry::hub {

VictimPlan VictimSearch::plan(JobId id, ClusterState& cluster, ClusterIndex c,
                              const std::set<RunningKey>& candidates, Reclaim reclaim,
                              const PlacementPolicy& policy) const {
  const Job& job = rules_.jobs[id];
  const QueueTree& queues = rules_.queues;
  VictimPlan plan;
  // Tentative allocations of the queues victims were taken from (few: a
  // cluster's runs belong to many queues, and looking one up must not cost
  // a scan over all of them).
  std::vector<std::pair<QueueIndex, ResourceVector>> taken_from;
  auto tentative = [&](QueueIndex q) -> ResourceVector* {
    for (auto& [queue, allocated] : taken_from)
      if (queue == q) return &allocated;
    return nullptr;
  };
  std::vector<DispatchId> released;
  for (const RunningKey& key : candidates) {
    const Dispatch& run = runs_.at(key.dispatch);
    const QueueIndex owner = rules_.jobs[run.job].queue;
    ResourceVector* taken = tentative(owner);
    if (!rules_.may_evict_for(job, run, taken ? *taken : queues.node(owner).allocated, reclaim))
      continue;
    if (taken == nullptr)
      taken = &taken_from.emplace_back(owner, queues.node(owner).allocated).second;
    *taken -= run.amount;
    release(cluster, placed_on(key.dispatch, c));
    released.push_back(key.dispatch);
    if (job.minimum().fits_in(cluster.total_free()) && fits(id, cluster, policy)) {
      plan.cluster = c;
      plan.victims = released;
      break;
    }
  }
  if (plan.cluster != kNoCluster) keep_unneeded(id, cluster, plan, policy);
  for (DispatchId victim : plan.cluster != kNoCluster ? plan.victims : released)
    for (const NodeAssignment& entry : placed_on(victim, c)) cluster.take(entry.node, entry.amount);
  if (plan.victims.empty()) plan.cluster = kNoCluster;
  return plan;
}

bool VictimSearch::fits(JobId id, ClusterState& cluster, const PlacementPolicy& policy) const {
  return placer_.check(cluster, rules_.jobs[id].gang, id, &policy).fits;
}

// Eviction order finds a set that works, not the smallest one: a victim whose
// room the gang does not need after all (it sat on nodes the gang does not
// use) is given its resources back and keeps running. Called with every
// victim released; returns with the kept ones' resources taken again.
void VictimSearch::keep_unneeded(JobId id, ClusterState& cluster, VictimPlan& plan,
                                 const PlacementPolicy& policy) const {
  std::vector<DispatchId> needed;
  for (DispatchId victim : plan.victims) {
    const std::vector<NodeAssignment>& placed = placed_on(victim, plan.cluster);
    for (const NodeAssignment& entry : placed) cluster.take(entry.node, entry.amount);
    if (fits(id, cluster, policy)) continue;  // fits without evicting it
    release(cluster, placed);
    needed.push_back(victim);
  }
  plan.victims = std::move(needed);
}

}  // namespace gantry::hub
