// Making room for a job that does not fit: evicting whole running gangs, by
// reclaim (from queues above their deserved share) or by preemption (lower
// priority in the job's own queue). Which runs may go: hub/eviction_rules.hpp;
// which of them a cluster's plan takes: hub/victim_search.hpp.
#include <algorithm>

#include "hub/scheduler.hpp"
#include "hub/victim_search.hpp"

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
  const EvictionRules rules = eviction_rules();
  const VictimSearch victims(rules, dispatches_, placer_);
  const PlacementPolicy& policy = policy_for(job);
  VictimPlan best;
  for (ClusterIndex c = 0; c < clusters_.size(); ++c) {
    if (!PlacementPolicy::eligible(clusters_[c], c, job)) continue;
    VictimPlan plan =
        victims.plan(id, clusters_[c], c, eviction_candidates(c, search), search.reclaim, policy);
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

EvictionRules SchedulerCore::eviction_rules() const {
  return EvictionRules{options_, queues_, jobs_, pass_.now, pass_.first_dispatch};
}

EvictionSearch SchedulerCore::eviction_search_for(const Job& job) const {
  return eviction_rules().search_for(job, pass_.tried_eviction[job.queue] != 0,
                                     pass_.eviction_searches_left);
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
