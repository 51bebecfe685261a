// Starvation guard (Volcano's sla-waiting-time): a job pending past its SLA is
// tried before anything else, and if it still does not fit, nodes are held for
// it (starvation holds) so that smaller jobs cannot keep taking the room it is
// waiting for.
#include <algorithm>

#include "hub/scheduler.hpp"

namespace gantry::hub {

void SchedulerCore::serve_starving(TimeMs now) {
  for (auto it = sla_watch_.begin(); it != sla_watch_.end() && it->deadline <= now;) {
    const JobId id = it->job;
    ++it;  // a successful attempt removes the job's own entry
    // Starving jobs with earlier deadlines hold every node it may use: it can
    // neither start nor hold anything this pass, and trying costs O(nodes).
    if (every_allowed_node_held(jobs_[id])) continue;
    if (attempt(id, now)) continue;
    // With backfill, a plan from running jobs' time limits; without one (or
    // when no limits free enough), whole nodes held until they do.
    if (options_.reservations == 0 || reserved_in_pass(id) || !reserve(id)) hold_nodes_for(id);
  }
}

// False when no cluster it may use is ready: the attempt then records why.
bool SchedulerCore::every_allowed_node_held(const Job& job) const {
  bool any = false;
  for (ClusterIndex c = 0; c < clusters_.size(); ++c) {
    if (!PlacementPolicy::eligible(clusters_[c], c, job)) continue;
    if (!clusters_[c].fully_held()) return false;
    any = true;
  }
  return any;
}

// Holds, on the cluster the policy chooses, the nodes it chooses for each of
// the job's min_available replicas.
void SchedulerCore::hold_nodes_for(JobId id) {
  const ClusterIndex chosen = policy().choose_hold_cluster(clusters_, jobs_[id]);
  if (chosen == kNoCluster) return;
  if (pass_.promised.size() < clusters_[chosen].node_count())
    pass_.promised.resize(clusters_[chosen].node_count());
  hold_nodes(id, chosen);
  for (NodeIndex n : pass_.promised_nodes) pass_.promised[n] = ResourceVector{};
  pass_.promised_nodes.clear();
}

void SchedulerCore::hold_nodes(JobId id, ClusterIndex cluster_index) {
  const Job& job = jobs_[id];
  ClusterState& cluster = clusters_[cluster_index];
  std::int32_t held = 0;
  for (const TaskShape& task : job.gang.tasks) {
    for (std::int32_t r = 0; r < task.replicas && held < job.gang.min_available; ++r) {
      const std::optional<NodeIndex> best =
          policy().choose_hold_node(cluster, task, pass_.promised, id);
      if (!best) return;
      pass_.promised[*best] += task.per_replica;
      pass_.promised_nodes.push_back(*best);
      cluster.hold_node(*best, id);
      ++held;
    }
  }
}

}  // namespace gantry::hub
