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

bool overused_after(const QueueNode& queue, const ResourceVector& allocated, const ResourceVector& of) {
  for (ResourceId r = 0; r < kMaxResources; ++r)
    if (of.get(r) > 0 && allocated.get(r) > queue.deserved.get(r)) return true;
  return false;
}

}  // namespace

bool SchedulerCore::make_room(JobId id, TimeMs now) {
  Job& job = jobs_[id];
  if (tried_eviction_[job.queue]) return false;
  tried_eviction_[job.queue] = 1;
  const std::vector<DispatchId> candidates = eviction_candidates(job);
  if (candidates.empty()) return false;
  EvictionPlan best;
  for (ClusterIndex c = 0; c < clusters_.size(); ++c) {
    if (!clusters_[c].ready() || !cluster_allowed(job, c)) continue;
    EvictionPlan plan = plan_eviction(id, c, candidates);
    if (plan.cluster == kNoCluster) continue;
    if (best.cluster == kNoCluster || plan.victims.size() < best.victims.size()) best = std::move(plan);
  }
  if (best.cluster == kNoCluster) return false;
  for (DispatchId victim : best.victims) evict(victim, id, now);
  return try_place(id);
}

// Reclaimable jobs of overused queues when the job's queue would stay within
// its deserved share, and lower-priority jobs of its own queue; in eviction
// order (lowest priority, newest first).
std::vector<DispatchId> SchedulerCore::eviction_candidates(const Job& job) const {
  std::vector<RunningKey> keys;
  if (options_.preemption) {
    for (const RunningKey& key : queues_.node(job.queue).running) {
      if (key.priority >= job.priority) break;
      keys.push_back(key);
    }
  }
  if (options_.reclaim && queues_.within_deserved(job.queue, job.minimum)) {
    for (QueueIndex q = 0; q < queues_.size(); ++q) {
      const QueueNode& node = queues_.node(q);
      if (q == job.queue || node.deleted || node.running.empty() || !node.spec.reclaimable) continue;
      if (!queues_.overused(q, job.minimum)) continue;
      keys.insert(keys.end(), node.running.begin(), node.running.end());
    }
  }
  std::sort(keys.begin(), keys.end());
  std::vector<DispatchId> out;
  out.reserve(keys.size());
  for (const RunningKey& key : keys) out.push_back(key.dispatch);
  return out;
}

// The fewest victims on one cluster, in candidate order, after which the job
// fits there. Victims from other queues are taken only while their queue stays
// above its deserved share and not below its guarantee. Leaves the cluster as
// it found it.
SchedulerCore::EvictionPlan SchedulerCore::plan_eviction(JobId id, ClusterIndex c,
                                                         const std::vector<DispatchId>& candidates) {
  const Job& job = jobs_[id];
  EvictionPlan plan;
  ClusterState& cluster = clusters_[c];
  std::vector<std::pair<QueueIndex, ResourceVector>> taken_from;  // tentative queue allocations
  auto allocated_now = [&](QueueIndex q) -> ResourceVector& {
    for (auto& [queue, allocated] : taken_from)
      if (queue == q) return allocated;
    taken_from.emplace_back(q, queues_.node(q).allocated);
    return taken_from.back().second;
  };
  std::vector<DispatchId> released;
  for (DispatchId candidate : candidates) {
    const Dispatch& dispatch = dispatches_.at(candidate);
    if (dispatch.cluster != c) continue;
    const Job& victim = jobs_[dispatch.job];
    ResourceVector& allocated = allocated_now(victim.queue);
    if (victim.queue != job.queue) {
      const QueueNode& owner = queues_.node(victim.queue);
      if (!overused_after(owner, allocated, job.minimum)) continue;
      if (!owner.guarantee.fits_in(allocated - dispatch.amount)) continue;
    }
    allocated -= dispatch.amount;
    release(cluster, dispatch.assignment);
    released.push_back(candidate);
    if (placer_.check(cluster, job.gang, id).fits) {
      plan.cluster = c;
      plan.victims = released;
      break;
    }
  }
  for (DispatchId id : released)
    for (const NodeAssignment& entry : dispatches_.at(id).assignment) cluster.take(entry.node, entry.amount);
  return plan;
}

// Stops a running gang and sends its job back to its queue, with the reason.
void SchedulerCore::evict(DispatchId victim, JobId for_job, TimeMs now) {
  Dispatch& dispatch = dispatches_.at(victim);
  const JobId id = dispatch.job;
  const ClusterIndex cluster = dispatch.cluster;
  // The hub frees the nodes now, whether or not the agent had reported them:
  // the agent frees them when it stops the gang.
  dispatch.reserved = true;
  decisions_.push_back(Decision{Decision::Kind::kEvict, id, victim, cluster});
  release_dispatch(victim);
  Job& job = jobs_[id];
  ++job.preemptions;
  PendingReason reason{PendingReason::Kind::kPreempted};
  reason.cluster = cluster;
  reason.by_job = for_job;
  requeue(id, reason, now);
  reposition(job.queue);
}

}  // namespace gantry::hub
