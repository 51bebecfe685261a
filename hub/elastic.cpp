// Elastic jobs in the scheduling core (hub/elastic.hpp, docs/elastic.md).
//
// Only the last part of a dispatch grows or shrinks: replicas are numbered
// per task over the parts in order, so changing the last part keeps every
// replica's index (and the other parts' offsets) as they were.
#include "hub/elastic.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "hub/scheduler.hpp"

namespace gantry::hub {

bool within_queue_limits(const QueueTree& queues, QueueIndex queue, const ResourceVector& amount,
                         const ResourceVector& pool_free) {
  QueueIndex capped = 0;
  ResourceId resource = 0;
  if (!queues.within_capability(queue, amount, capped, resource)) return false;
  return amount.fits_in(pool_free - queues.unused_guarantees_of_others(queue));
}

void SchedulerCore::note_elastic(const Dispatch& dispatch) {
  if (dispatch.world_size < jobs_[dispatch.job].gang.total_replicas()) {
    elastic_below_.insert(dispatch.id);
  } else {
    elastic_below_.erase(dispatch.id);
  }
}

// A placement of an elastic job takes every replica that fits; its queue may
// allow fewer: the replicas above minAvailable go back, last placed first.
void SchedulerCore::trim_to_queue_limits(JobId id, Placement& placement) {
  const Job& job = jobs_[id];
  if (!is_elastic(job.gang)) return;
  // try_place's assignment is pass_.assignment whole.
  give_back_over_limits(clusters_[placement.cluster], job.gang, pass_.assignment,
                        static_cast<std::size_t>(job.gang.min_available),
                        [&](const ResourceVector& cost) {
                          return within_queue_limits(queues_, job.queue, cost, pass_.pool_free);
                        });
  placement.assignment = pass_.assignment;
}

// ------------------------------------------------------------------ growth

// The growth stage (elastic_growth.cpp) placed `pass_.assignment` for the
// dispatch's last part: hold it, charge its queue and ask the agent (Resize).
void SchedulerCore::start_growth(Dispatch& dispatch, const ResourceVector& amount, TimeMs now) {
  const Job& job = jobs_[dispatch.job];
  dispatch.growing = pass_.assignment;
  for (const NodeAssignment& entry : dispatch.growing) pass_.pool_free -= entry.amount;
  dispatch.growing_amount = amount;
  dispatch.amount += amount;
  queues_.add_allocation(job.queue, amount);
  sync_over_share(job.queue);
  dispatch.growing_until = now + options_.resize_answer_timeout_ms;
  ++dispatch.elastic_epoch;
  decisions_.push_back(
      Decision{Decision::Kind::kResize, dispatch.job, dispatch.id, dispatch.parts.back().cluster});
}

bool SchedulerCore::resize_answered(DispatchId id, ClusterIndex cluster,
                                    std::uint32_t elastic_epoch, bool admitted, TimeMs now) {
  auto it = dispatches_.find(id);
  if (it == dispatches_.end()) return false;
  Dispatch& dispatch = it->second;
  DispatchPart& part = dispatch.parts.back();
  if (dispatch.growing.empty() || part.cluster != cluster ||
      dispatch.elastic_epoch != elastic_epoch)
    return false;
  Job& job = jobs_[dispatch.job];
  if (!admitted) {
    drop_growth(dispatch);
    --dispatch.elastic_epoch;  // no replica ever saw it
    ++dispatch.grow_refusals;
    TimeMs wait = options_.backoff_base_ms;
    for (std::int32_t i = 1; i < dispatch.grow_refusals && wait < options_.backoff_max_ms; ++i)
      wait *= 2;
    dispatch.grow_after = now + std::min(wait, options_.backoff_max_ms);
    backoff_ends_.emplace(dispatch.grow_after, dispatch.job);
    return true;
  }
  for (const NodeAssignment& entry : dispatch.growing) {
    part.assignment.push_back(entry);
    count_replica_end(dispatch, part.cluster, entry.node, true);
    ++part.task_replicas[entry.task];
    part.held += entry.amount;
  }
  part.amount += dispatch.growing_amount;
  // Held by the hub until a usage report counts the new replicas too.
  part.awaiting_report = true;
  dispatch.world_size += static_cast<std::int32_t>(dispatch.growing.size());
  dispatch.growing.clear();
  dispatch.growing_amount = ResourceVector{};
  dispatch.grow_refusals = 0;
  note_parts(job, dispatch);
  note_elastic(dispatch);
  return true;
}

// A growth unanswered past its timeout counts as refused.
void SchedulerCore::expire_growth(TimeMs now) {
  std::vector<DispatchId> late;
  for (DispatchId id : elastic_below_) {
    const Dispatch& dispatch = dispatches_.at(id);
    if (!dispatch.growing.empty() && dispatch.growing_until <= now) late.push_back(id);
  }
  for (DispatchId id : late) {
    const Dispatch& dispatch = dispatches_.at(id);
    resize_answered(id, dispatch.parts.back().cluster, dispatch.elastic_epoch, false, now);
  }
}

// Gives back what a pending growth holds: its nodes (held by the hub alone)
// and its charge.
void SchedulerCore::drop_growth(Dispatch& dispatch) {
  if (dispatch.growing.empty()) return;
  ClusterState& cluster = clusters_[dispatch.parts.back().cluster];
  release(cluster, dispatch.growing);
  if (cluster.ready() && !cluster.cordoned())
    for (const NodeAssignment& entry : dispatch.growing) pass_.pool_free += entry.amount;
  queues_.remove_allocation(jobs_[dispatch.job].queue, dispatch.growing_amount);
  sync_over_share(jobs_[dispatch.job].queue);
  dispatch.amount -= dispatch.growing_amount;
  dispatch.growing.clear();
  dispatch.growing_amount = ResourceVector{};
}

// ------------------------------------------------------------------ shrinking

// The same victims an eviction may take, but only their replicas above
// minAvailable: on the first cluster where that makes the job fit.
bool SchedulerCore::shrink_for(JobId id, Reclaim reclaim) {
  for (ClusterIndex c = 0; c < clusters_.size(); ++c) {
    if (!PlacementPolicy::eligible(clusters_[c], c, jobs_[id])) continue;
    if (shrink_on(id, c, reclaim)) return true;
  }
  return false;
}

bool SchedulerCore::shrink_on(JobId id, ClusterIndex c, Reclaim reclaim) {
  const Job& job = jobs_[id];
  ClusterState& cluster = clusters_[c];
  std::vector<std::pair<DispatchId, std::size_t>> taken;  // bounded: eviction searches per pass
  bool fits = false;
  const EvictionRules rules = eviction_rules();
  for (const RunningKey& key : elastic_on_[c]) {
    Dispatch& dispatch = dispatches_.at(key.dispatch);
    const Job& victim = jobs_[dispatch.job];
    DispatchPart& part = dispatch.parts.back();
    if (part.cluster != c || part.assignment.empty() || !dispatch.committed ||
        !dispatch.growing.empty() || !is_elastic(victim.gang) ||
        dispatch.world_size <= victim.gang.min_available)
      continue;
    if (!rules.may_evict_for(job, dispatch, queues_.node(victim.queue).allocated, reclaim))
      continue;
    const std::size_t spare =
        std::min(static_cast<std::size_t>(dispatch.world_size - victim.gang.min_available),
                 part.assignment.size() - 1);
    std::size_t given = 0;
    while (given < spare && !fits) {
      const NodeAssignment& entry = part.assignment[part.assignment.size() - 1 - given];
      cluster.give(entry.node, entry.amount);
      ++given;
      fits = job.minimum().fits_in(cluster.total_free()) &&
             placer_.check(cluster, job.gang, id, &policy_for(job)).fits;
    }
    if (given > 0) taken.emplace_back(key.dispatch, given);
    if (fits) break;
  }
  for (const auto& [victim, given] : taken) {
    const std::vector<NodeAssignment>& assignment = dispatches_.at(victim).parts.back().assignment;
    for (std::size_t k = 0; k < given; ++k)
      cluster.take(assignment[assignment.size() - 1 - k].node,
                   assignment[assignment.size() - 1 - k].amount);
  }
  if (!fits) return false;
  for (const auto& [victim, given] : taken) shrink(dispatches_.at(victim), given);
  return true;
}

// Stops the last `replicas` replicas of the dispatch's last part (its highest
// indices): freed and uncharged at once, as an eviction is.
void SchedulerCore::shrink(Dispatch& dispatch, std::size_t replicas) {
  Job& job = jobs_[dispatch.job];
  DispatchPart& part = dispatch.parts.back();
  ClusterState& cluster = clusters_[part.cluster];
  ResourceVector amount;
  for (std::size_t k = 0; k < replicas; ++k) {
    const NodeAssignment entry = part.assignment.back();
    part.assignment.pop_back();
    count_replica_end(dispatch, part.cluster, entry.node, false);
    cluster.give(entry.node, entry.amount);
    if (cluster.ready() && !cluster.cordoned()) pass_.pool_free += entry.amount;
    --part.task_replicas[entry.task];
    part.held -= entry.amount;
    amount += job.gang.tasks[entry.task].per_replica;
  }
  part.amount -= amount;
  dispatch.amount -= amount;
  dispatch.world_size -= static_cast<std::int32_t>(replicas);
  queues_.remove_allocation(job.queue, amount);
  sync_over_share(job.queue);
  ++dispatch.elastic_epoch;
  note_parts(job, dispatch);
  note_elastic(dispatch);
  pass_.failures.forget();  // capacity was freed
  pass_.queue_stage.reposition(queues_, job.queue);
  decisions_.push_back(Decision{Decision::Kind::kResize, dispatch.job, dispatch.id, part.cluster});
}

}  // namespace gantry::hub
