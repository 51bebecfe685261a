// The eviction rules: see eviction_rules.hpp.
#include "hub/eviction_rules.hpp"

namespace gantry::hub {
namespace {

bool overused_after(const QueueNode& queue, const ResourceVector& allocated,
                    const ResourceVector& of) {
  for (ResourceId r = 0; r < kMaxResources; ++r)
    if (of.get(r) > 0 && allocated.get(r) > queue.deserved.get(r)) return true;
  return false;
}

}  // namespace

EvictionSearch EvictionRules::search_for(const Job& job, bool queue_searched,
                                         std::uint32_t searches_left) const {
  EvictionSearch search;
  if (!job.may_preempt) return search;  // PriorityClass preemptionPolicy: Never
  const QueueNode& queue = queues.node(job.queue);
  // A queue taking back its guarantee may search again in the same pass: a
  // guarantee comes back within one pass of the demand, not one gang per pass.
  const bool within_guarantee = (queue.allocated + job.minimum()).fits_in(queue.guarantee);
  if ((queue_searched && !within_guarantee) || searches_left == 0) return search;
  search.preempt = options.preemption && !queue.running.empty() &&
                   queue.running.begin()->priority < job.priority;
  // Taking back a guarantee may evict runs of any age; reclaiming toward the
  // deserved share spares old ones (SchedulerOptions::reclaim_spares_after_ms).
  if (options.reclaim && queues.within_deserved(job.queue, job.minimum()))
    search.reclaim = within_guarantee ? Reclaim::kToGuarantee : Reclaim::kToDeserved;
  search.allowed = search.preempt || search.reclaim != Reclaim::kNo;
  return search;
}

// Lower priority in the job's own queue (preemption); or a reclaimable queue
// that stays above its deserved share and not below its guarantee (reclaim).
bool EvictionRules::may_evict_for(const Job& job, const Dispatch& dispatch,
                                  const ResourceVector& victim_allocated, Reclaim reclaim) const {
  if (dispatch.id >= first_of_pass) return false;  // placed by this very pass
  if (within_min_runtime(dispatch)) return false;
  for (const DispatchPart& part : dispatch.parts)
    if (part.state == PartState::kStopping) return false;  // already on its way out
  const Job& victim = jobs[dispatch.job];
  if (victim.queue == job.queue) return options.preemption && victim.priority < job.priority;
  if (reclaim == Reclaim::kNo ||
      (reclaim == Reclaim::kToDeserved && (spared_by_age(victim) || started_starving(victim))))
    return false;
  const QueueNode& owner = queues.node(victim.queue);
  // A guarantee outranks a deserved share: with deserved water-filled by
  // demand, a queue may hold exactly its share while the guaranteed GPUs left
  // free are too fragmented for the gang that claims them.
  const bool over =
      reclaim == Reclaim::kToGuarantee || overused_after(owner, victim_allocated, job.minimum());
  return owner.spec.reclaimable && over &&
         owner.guarantee.fits_in(victim_allocated - dispatch.amount);
}

// A gang still being prepared has not started anything: it is never spared.
bool EvictionRules::within_min_runtime(const Dispatch& dispatch) const {
  return options.min_runtime_ms > 0 && dispatch.committed &&
         now - dispatch.committed_ms < options.min_runtime_ms;
}

// A run's age counts from its commit; a gang still being prepared (started_ms
// 0) has not started and is never spared.
bool EvictionRules::spared_by_age(const Job& victim) const {
  return options.reclaim_spares_after_ms > 0 && victim.started_ms > 0 &&
         now - victim.started_ms > options.reclaim_spares_after_ms;
}

// Its start was the starvation guard's promise, and taking it back toward
// another queue's deserved share would start the wait over (a gang evicted
// again and again each time it started). Preemption and guarantees still apply.
bool EvictionRules::started_starving(const Job& victim) {
  return victim.started_ms > 0 && victim.past_sla_at(victim.started_ms);
}

}  // namespace gantry::hub
