// The starvation stage: see starvation.hpp.
#include "hub/starvation.hpp"

#include "hub/pass_session.hpp"

namespace gantry::hub {

void serve_starving(PassSession& session, StarvationHolds& holds) {
  const TimeMs now = session.now();
  const SlaWatch& watch = session.sla_watch();
  for (auto it = watch.begin(); it != watch.end() && it->deadline <= now;) {
    const JobId id = it->job;
    ++it;  // a successful attempt removes the job's own entry
    const Job& job = session.job(id);
    // Trying one whose every node is held costs O(nodes) and changes nothing.
    if (every_allowed_node_held(session.clusters(), job)) continue;
    if (session.attempt(id)) continue;
    // With backfill, a plan from running jobs' time limits; without one (or
    // when no limits free enough), whole nodes held until they do.
    if (!session.reserve(id)) holds.hold_for(session.clusters(), session.default_policy(), job, id);
  }
}

bool every_allowed_node_held(std::span<const ClusterState> clusters, const Job& job) {
  bool any = false;
  for (ClusterIndex c = 0; c < clusters.size(); ++c) {
    if (!PlacementPolicy::eligible(clusters[c], c, job)) continue;
    if (!clusters[c].fully_held()) return false;
    any = true;
  }
  return any;
}

void StarvationHolds::hold_for(std::span<ClusterState> clusters, const PlacementPolicy& policy,
                               const Job& job, JobId id) {
  const ClusterIndex chosen = policy.choose_hold_cluster(clusters, job);
  if (chosen == kNoCluster) return;
  if (promised_.size() < clusters[chosen].node_count())
    promised_.resize(clusters[chosen].node_count());
  hold_on(clusters[chosen], policy, job, id);
  for (NodeIndex n : promised_nodes_) promised_[n] = ResourceVector{};
  promised_nodes_.clear();
}

void StarvationHolds::hold_on(ClusterState& cluster, const PlacementPolicy& policy, const Job& job,
                              JobId id) {
  std::int32_t held = 0;
  for (const TaskShape& task : job.gang.tasks) {
    for (std::int32_t r = 0; r < task.replicas && held < job.gang.min_available; ++r) {
      const std::optional<NodeIndex> best = policy.choose_hold_node(cluster, task, promised_, id);
      if (!best) return;
      promised_[*best] += task.per_replica;
      promised_nodes_.push_back(*best);
      cluster.hold_node(*best, id);
      ++held;
    }
  }
}

}  // namespace gantry::hub
