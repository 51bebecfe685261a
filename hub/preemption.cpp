// Making room for a job that does not fit: evicting whole running gangs, by
// reclaim (from queues above their deserved share) or by preemption (lower
// priority in the job's own queue). Which runs may go: hub/eviction_rules.hpp.
#include <algorithm>

#include "hub/scheduler.hpp"

namespace gantry::hub {

// Once per queue per pass, and at most eviction_searches_per_pass times in a
// pass: picks the cluster where the fewest evictions make the job fit (the
// first of them in cluster order). One victim is the fewest there can be: a
// cluster where the job fits with none is no plan (place() just found it
// does not fit anywhere it may go), so the search stops at the first.
bool SchedulerCore::make_room(JobId id, TimeMs now) {
  Job& job = jobs_[id];
  const EvictionSearch search = eviction_search_for(job);
  if (!search.allowed) return false;
  pass_.tried_eviction[job.queue] = 1;
  --pass_.eviction_searches_left;
  // Elastic replicas above their jobs' minAvailable go before any whole gang.
  if (shrink_for(id, search.reclaim)) return place(id);
  EvictionPlan best;
  for (ClusterIndex c = 0; c < clusters_.size(); ++c) {
    if (!PlacementPolicy::eligible(clusters_[c], c, job)) continue;
    EvictionPlan plan = plan_eviction(id, c, search);
    if (plan.cluster == kNoCluster) continue;
    if (best.cluster == kNoCluster || plan.victims.size() < best.victims.size())
      best = std::move(plan);
    if (best.victims.size() == 1) break;
  }
  if (best.cluster == kNoCluster) return false;
  for (DispatchId victim : best.victims) evict(victim, id, now, best.cluster);
  return place(id);
}

// The runs of the cluster a search may take victims from, in eviction order:
// without preemption, a reclaim toward deserved shares takes only from queues
// over theirs.
const std::set<RunningKey>& SchedulerCore::eviction_candidates(ClusterIndex c,
                                                               const EvictionSearch& search) const {
  if (options_.walk_over_share_only && !search.preempt && search.reclaim == Reclaim::kToDeserved)
    return over_share_on_[c];
  return running_on_[c];
}

// The fewest victims on one cluster, in eviction order, after which the job
// fits there (none: no plan). Leaves the cluster as it found it.
EvictionRules SchedulerCore::eviction_rules() const {
  return EvictionRules{options_, queues_, jobs_, pass_.now, pass_.first_dispatch};
}

EvictionSearch SchedulerCore::eviction_search_for(const Job& job) const {
  return eviction_rules().search_for(job, pass_.tried_eviction[job.queue] != 0,
                                     pass_.eviction_searches_left);
}

SchedulerCore::EvictionPlan SchedulerCore::plan_eviction(JobId id, ClusterIndex c,
                                                         const EvictionSearch& search) {
  const Job& job = jobs_[id];
  const Reclaim reclaim = search.reclaim;
  const EvictionRules rules = eviction_rules();
  EvictionPlan plan;
  ClusterState& cluster = clusters_[c];
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
  for (const RunningKey& key : eviction_candidates(c, search)) {
    const Dispatch& dispatch = dispatches_.at(key.dispatch);
    const QueueIndex owner = jobs_[dispatch.job].queue;
    ResourceVector* taken = tentative(owner);
    if (!rules.may_evict_for(job, dispatch, taken ? *taken : queues_.node(owner).allocated,
                             reclaim))
      continue;
    if (taken == nullptr)
      taken = &taken_from.emplace_back(owner, queues_.node(owner).allocated).second;
    *taken -= dispatch.amount;
    release(cluster, dispatch.part_on(c)->assignment);
    released.push_back(key.dispatch);
    if (job.minimum.fits_in(cluster.total_free()) &&
        placer_.check(cluster, job.gang, id, &policy_for(job)).fits) {
      plan.cluster = c;
      plan.victims = released;
      break;
    }
  }
  if (plan.cluster != kNoCluster) keep_unneeded_victims(id, cluster, plan);
  for (DispatchId victim : plan.cluster != kNoCluster ? plan.victims : released)
    for (const NodeAssignment& entry : dispatches_.at(victim).part_on(c)->assignment)
      cluster.take(entry.node, entry.amount);
  if (plan.victims.empty()) plan.cluster = kNoCluster;
  return plan;
}

// Eviction order finds a set that works, not the smallest one: a victim whose
// room the gang does not need after all (it sat on nodes the gang does not
// use) is given its resources back and keeps running. Called with every
// victim released; returns with the kept ones' resources taken again.
void SchedulerCore::keep_unneeded_victims(JobId id, ClusterState& cluster, EvictionPlan& plan) {
  const Job& job = jobs_[id];
  const ClusterIndex c = plan.cluster;
  std::vector<DispatchId> needed;
  for (auto it = plan.victims.begin(); it != plan.victims.end(); ++it) {
    const std::vector<NodeAssignment>& victim = dispatches_.at(*it).part_on(c)->assignment;
    for (const NodeAssignment& entry : victim) cluster.take(entry.node, entry.amount);
    if (placer_.check(cluster, job.gang, id, &policy_for(job)).fits)
      continue;  // fits without evicting it
    release(cluster, victim);
    needed.push_back(*it);
  }
  plan.victims = std::move(needed);
}

// Stops a running gang (every part of it) and sends its job back to its
// queue, with the reason.
void SchedulerCore::evict(DispatchId victim, JobId for_job, TimeMs now, ClusterIndex cluster) {
  Dispatch& dispatch = dispatches_.at(victim);
  const JobId id = dispatch.job;
  // The hub frees the nodes now, whether or not the agent had reported them:
  // the agent frees them when it stops the gang.
  for (DispatchPart& part : dispatch.parts) {
    part.awaiting_report = true;
    if (part.state != PartState::kEnded)
      decisions_.push_back(Decision{Decision::Kind::kEvict, id, victim, part.cluster});
  }
  if (!backfill_.holding()) {
    release_dispatch(victim);
  } else {
    const std::vector<DispatchPart> parts = dispatch.parts;
    const TimeMs planned_end = dispatch.planned_end;
    release_dispatch(victim);
    backfill_.release_seen(clusters_, parts, planned_end);
  }
  pass_.failures.forget();  // capacity was freed: earlier failures prove nothing now
  Job& job = jobs_[id];
  ++job.preemptions;
  PendingReason reason{PendingReason::Kind::kPreempted};
  reason.cluster = cluster;
  reason.by_job = for_job;
  requeue_or_apply(id, reason, LifecycleEvent::kPodEvicted, now);
  pass_.queue_stage.reposition(queues_, job.queue);
}

}  // namespace gantry::hub
