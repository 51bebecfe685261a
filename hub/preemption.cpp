// Making room for a job that does not fit: evicting whole running gangs, by
// reclaim (from queues above their deserved share) or by preemption (lower
// priority in the job's own queue).
//
// Why this cannot loop: a reclaimer's queue stays within its deserved share
// after the job starts, and victims come only from queues above theirs, so the
// victims' queues can never reclaim back from it; preemption needs strictly
// higher priority, which is not symmetric either.
#include <algorithm>

#include "hub/scheduler.hpp"

namespace gantry::hub {

namespace {

bool overused_after(const QueueNode& queue, const ResourceVector& allocated,
                    const ResourceVector& of) {
  for (ResourceId r = 0; r < kMaxResources; ++r)
    if (of.get(r) > 0 && allocated.get(r) > queue.deserved.get(r)) return true;
  return false;
}

}  // namespace

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

SchedulerCore::EvictionSearch SchedulerCore::eviction_search_for(const Job& job) const {
  EvictionSearch search;
  if (!job.may_preempt) return search;  // PriorityClass preemptionPolicy: Never
  const QueueNode& queue = queues_.node(job.queue);
  // A queue taking back its guarantee may search again in the same pass: a
  // guarantee comes back within one pass of the demand, not one gang per pass.
  const bool within_guarantee = (queue.allocated + job.minimum).fits_in(queue.guarantee);
  if ((pass_.tried_eviction[job.queue] && !within_guarantee) || pass_.eviction_searches_left == 0)
    return search;
  search.preempt = options_.preemption && !queue.running.empty() &&
                   queue.running.begin()->priority < job.priority;
  // Taking back a guarantee may evict runs of any age; reclaiming toward the
  // deserved share spares old ones (SchedulerOptions::reclaim_spares_after_ms).
  if (options_.reclaim && queues_.within_deserved(job.queue, job.minimum))
    search.reclaim = within_guarantee ? Reclaim::kToGuarantee : Reclaim::kToDeserved;
  search.allowed = search.preempt || search.reclaim != Reclaim::kNo;
  return search;
}

// Lower priority in the job's own queue (preemption); or a reclaimable queue
// that stays above its deserved share and not below its guarantee (reclaim).
bool SchedulerCore::may_evict_for(const Job& job, const Dispatch& dispatch,
                                  const ResourceVector& victim_allocated, Reclaim reclaim) const {
  if (dispatch.id >= pass_.first_dispatch) return false;  // placed by this very pass
  if (within_min_runtime(dispatch)) return false;
  for (const DispatchPart& part : dispatch.parts)
    if (part.state == PartState::kStopping) return false;  // already on its way out
  const Job& victim = jobs_[dispatch.job];
  if (victim.queue == job.queue) return options_.preemption && victim.priority < job.priority;
  if (reclaim == Reclaim::kNo ||
      (reclaim == Reclaim::kToDeserved && (spared_by_age(victim) || started_starving(victim))))
    return false;
  const QueueNode& owner = queues_.node(victim.queue);
  // A guarantee outranks a deserved share: with deserved water-filled by
  // demand, a queue may hold exactly its share while the guaranteed GPUs left
  // free are too fragmented for the gang that claims them.
  const bool over =
      reclaim == Reclaim::kToGuarantee || overused_after(owner, victim_allocated, job.minimum);
  return owner.spec.reclaimable && over &&
         owner.guarantee.fits_in(victim_allocated - dispatch.amount);
}

// A gang still being prepared has not started anything: it is never spared.
bool SchedulerCore::within_min_runtime(const Dispatch& dispatch) const {
  return options_.min_runtime_ms > 0 && dispatch.committed &&
         pass_.now - dispatch.committed_ms < options_.min_runtime_ms;
}

// A run's age counts from its commit; a gang still being prepared (started_ms
// 0) has not started and is never spared.
bool SchedulerCore::spared_by_age(const Job& victim) const {
  return options_.reclaim_spares_after_ms > 0 && victim.started_ms > 0 &&
         pass_.now - victim.started_ms > options_.reclaim_spares_after_ms;
}

// A run that started after its job waited past its SLA: its start was the
// starvation guard's promise, and taking it back toward another queue's
// deserved share would start the wait over (a gang evicted again and again
// each time it started). Preemption and guarantees still apply.
bool SchedulerCore::started_starving(const Job& victim) const {
  return victim.started_ms > 0 && victim.past_sla_at(victim.started_ms);
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
SchedulerCore::EvictionPlan SchedulerCore::plan_eviction(JobId id, ClusterIndex c,
                                                         const EvictionSearch& search) {
  const Job& job = jobs_[id];
  const Reclaim reclaim = search.reclaim;
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
    if (!may_evict_for(job, dispatch, taken ? *taken : queues_.node(owner).allocated, reclaim))
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
  if (pass_.reservations.empty()) {
    release_dispatch(victim);
  } else {
    const std::vector<DispatchPart> parts = dispatch.parts;
    const TimeMs planned_end = dispatch.planned_end;
    release_dispatch(victim);
    release_seen_by_reservations(parts, planned_end);
  }
  pass_.failures.forget();  // capacity was freed: earlier failures prove nothing now
  Job& job = jobs_[id];
  ++job.preemptions;
  PendingReason reason{PendingReason::Kind::kPreempted};
  reason.cluster = cluster;
  reason.by_job = for_job;
  requeue_or_apply(id, reason, LifecycleEvent::kPodEvicted, now);
  pass_.order.reposition(queues_, job.queue);
}

}  // namespace gantry::hub
