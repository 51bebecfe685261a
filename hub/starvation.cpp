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
    // Starving jobs with earlier deadlines hold every node it may use: it can
    // neither start nor hold anything this pass, and trying costs O(nodes).
    if (every_allowed_node_held(jobs_[id])) continue;
    if (!attempt(id, now)) reserve_nodes_for(id);
  }
}

// False when no cluster it may use is ready: the attempt then records why.
bool SchedulerCore::every_allowed_node_held(const Job& job) const {
  bool any = false;
  for (ClusterIndex c = 0; c < clusters_.size(); ++c) {
    if (!clusters_[c].ready() || !cluster_allowed(job, c)) continue;
    if (!clusters_[c].fully_reserved()) return false;
    any = true;
  }
  return any;
}

// Holds, on the cluster with the most free GPUs that could ever hold the gang
// and still has nodes nobody holds, the nodes with the most free room for each
// of its min_available replicas.
void SchedulerCore::reserve_nodes_for(JobId id) {
  const Job& job = jobs_[id];
  ClusterIndex chosen = kNoCluster;
  for (ClusterIndex c = 0; c < clusters_.size(); ++c) {
    const ClusterState& cluster = clusters_[c];
    if (!cluster.ready() || cluster.fully_reserved() || !cluster_allowed(job, c) ||
        !job.minimum.fits_in(cluster.total_allocatable()))
      continue;
    if (chosen == kNoCluster || cluster.total_free().get(kGpu) > clusters_[chosen].total_free().get(kGpu)) chosen = c;
  }
  if (chosen == kNoCluster) return;
  if (promised_scratch_.size() < clusters_[chosen].node_count())
    promised_scratch_.resize(clusters_[chosen].node_count());
  hold_nodes(id, chosen);
  for (NodeIndex n : promised_nodes_) promised_scratch_[n] = ResourceVector{};
  promised_nodes_.clear();
}

void SchedulerCore::hold_nodes(JobId id, ClusterIndex cluster_index) {
  const Job& job = jobs_[id];
  ClusterState& cluster = clusters_[cluster_index];
  std::vector<ResourceVector>& promised = promised_scratch_;
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
      promised_nodes_.push_back(*best);
      cluster.reserve_node(*best, id);
      ++held;
    }
  }
}

}  // namespace gantry::hub
