// Starvation guard (Volcano's sla-waiting-time): a job pending past its SLA is
// tried before anything else, and if it still does not fit, nodes are held for
// it so that smaller jobs cannot keep taking the room it is waiting for.
#include <algorithm>

#include "hub/scheduler.hpp"

namespace gantry::hub {

void SchedulerCore::serve_starving(TimeMs now) {
  for (auto it = sla_watch_.begin(); it != sla_watch_.end() && it->deadline <= now;) {
    const JobId id = it->job;
    ++it;  // a successful attempt removes the job's own entry
    if (!attempt(id, now)) reserve_nodes_for(id);
  }
}

// Holds, on the cluster with the most free GPUs that could ever hold the gang,
// the nodes with the most free room for each of its min_available replicas.
void SchedulerCore::reserve_nodes_for(JobId id) {
  const Job& job = jobs_[id];
  ClusterIndex chosen = kNoCluster;
  for (ClusterIndex c = 0; c < clusters_.size(); ++c) {
    const ClusterState& cluster = clusters_[c];
    if (!cluster.ready() || !cluster_allowed(job, c) || !job.minimum.fits_in(cluster.total_allocatable())) continue;
    if (chosen == kNoCluster || cluster.total_free().get(kGpu) > clusters_[chosen].total_free().get(kGpu)) chosen = c;
  }
  if (chosen == kNoCluster) return;
  ClusterState& cluster = clusters_[chosen];
  std::vector<ResourceVector> promised(cluster.node_count());
  std::int32_t held = 0;
  for (const TaskShape& task : job.gang.tasks) {
    for (std::int32_t r = 0; r < task.replicas && held < job.gang.min_available; ++r) {
      std::optional<NodeIndex> best;
      for (NodeIndex n = 0; n < cluster.node_count(); ++n) {
        const Node& node = cluster.node(n);
        const std::uint32_t owner = cluster.reserved_for(n);
        if (owner != kNoOwner && owner != id) continue;
        if (!(promised[n] + task.per_replica).fits_in(node.allocatable)) continue;
        bool selected = true;
        for (const auto& [key, value] : task.node_selector) {
          auto label = node.labels.find(key);
          selected = selected && label != node.labels.end() && label->second == value;
        }
        if (!selected) continue;
        const auto room = [&](NodeIndex i) { return (cluster.node(i).free - promised[i]).get(kGpu); };
        if (!best || room(n) > room(*best)) best = n;
      }
      if (!best) return;
      promised[*best] += task.per_replica;
      cluster.reserve_node(*best, id);
      ++held;
    }
  }
}

}  // namespace gantry::hub
