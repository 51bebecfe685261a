#include "hub/placement_policy.hpp"

#include <algorithm>
#include <array>

namespace gantry::hub {

namespace {

// Fewest free GPUs first: best fit across clusters.
std::int64_t most_packed(const ClusterState& cluster, const Job& /*job*/) {
  return -cluster.total_free().get(kGpu);
}

// The registration table: a new score is a function above and a row here.
constexpr std::array kClusterScores{
    ClusterScore{"most-packed", &most_packed, 1},
};

std::int64_t whole_gpus_needed(const ResourceVector& request) {
  return (request.get(kGpu) + kMilli - 1) / kMilli;
}

}  // namespace

std::span<const ClusterScore> registered_cluster_scores() {
  return kClusterScores;
}

const ClusterScore* find_cluster_score(std::string_view name) {
  for (const ClusterScore& score : kClusterScores)
    if (score.name == name) return &score;
  return nullptr;
}

PlacementPolicy::PlacementPolicy() : PlacementPolicy({*find_cluster_score("most-packed")}) {}

PlacementPolicy::PlacementPolicy(std::vector<ClusterScore> scores) : scores_(std::move(scores)) {}

const PlacementPolicy& PlacementPolicy::standard() {
  static const PlacementPolicy policy;
  return policy;
}

// ------------------------------------------------------------------ eligibility

bool PlacementPolicy::allowed(const Job& job, ClusterIndex index) {
  if (job.allowed_clusters.empty()) return true;
  return std::find(job.allowed_clusters.begin(), job.allowed_clusters.end(), index) !=
         job.allowed_clusters.end();
}

bool PlacementPolicy::eligible(const ClusterState& cluster, ClusterIndex index, const Job& job) {
  return cluster.ready() && allowed(job, index);
}

bool PlacementPolicy::worth_trying(const ClusterState& cluster, ClusterIndex index,
                                   const Job& job) {
  if (!eligible(cluster, index, job)) return false;
  if (job.rejected_by == index && job.rejected_at_generation == cluster.report_generation())
    return false;
  return job.minimum.fits_in(cluster.total_free());
}

// ------------------------------------------------------------------ ranking

std::int64_t PlacementPolicy::score(const ClusterState& cluster, const Job& job) const {
  std::int64_t total = 0;
  for (const ClusterScore& each : scores_) total += each.weight * each.score(cluster, job);
  return total;
}

void PlacementPolicy::rank_clusters(const std::vector<ClusterState>& clusters, const Job& job,
                                    std::vector<RankedCluster>& out) const {
  out.clear();
  for (ClusterIndex c = 0; c < clusters.size(); ++c)
    if (worth_trying(clusters[c], c, job)) out.push_back(RankedCluster{score(clusters[c], job), c});
  std::sort(out.begin(), out.end(), [](const RankedCluster& a, const RankedCluster& b) {
    return a.score != b.score ? a.score > b.score : a.cluster < b.cluster;
  });
}

ClusterIndex PlacementPolicy::choose_hold_cluster(const std::vector<ClusterState>& clusters,
                                                  const Job& job) const {
  ClusterIndex chosen = kNoCluster;
  for (ClusterIndex c = 0; c < clusters.size(); ++c) {
    const ClusterState& cluster = clusters[c];
    if (!eligible(cluster, c, job) || cluster.fully_held() ||
        !job.minimum.fits_in(cluster.total_allocatable()))
      continue;
    if (chosen == kNoCluster ||
        cluster.total_free().get(kGpu) > clusters[chosen].total_free().get(kGpu))
      chosen = c;
  }
  return chosen;
}

// ------------------------------------------------------------------ nodes

bool PlacementPolicy::matches_selector(const Labels& labels, const Labels& selector) {
  for (const auto& [key, value] : selector) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return true;
}

std::optional<NodeIndex> PlacementPolicy::choose_node(const ClusterState& cluster,
                                                      const TaskShape& task,
                                                      std::uint32_t requester) const {
  const std::int64_t gpus = whole_gpus_needed(task.per_replica);
  const bool holds = cluster.has_holds();
  for (std::int64_t bucket = gpus; bucket <= cluster.max_node_gpus(); ++bucket) {
    for (NodeIndex index : cluster.nodes_with_free_gpus(bucket)) {
      if (holds && cluster.held_for(index) != kNoOwner && cluster.held_for(index) != requester)
        continue;
      const Node& node = cluster.node(index);
      if (task.per_replica.fits_in(node.free) && matches_selector(node.labels, task.node_selector))
        return index;
    }
  }
  return std::nullopt;
}

std::optional<NodeIndex> PlacementPolicy::choose_hold_node(const ClusterState& cluster,
                                                           const TaskShape& task,
                                                           std::span<const ResourceVector> promised,
                                                           std::uint32_t owner) const {
  const auto room = [&](NodeIndex i) { return (cluster.node(i).free - promised[i]).get(kGpu); };
  std::optional<NodeIndex> best;
  for (NodeIndex n = 0; n < cluster.node_count(); ++n) {
    const Node& node = cluster.node(n);
    const std::uint32_t holder = cluster.held_for(n);
    if (holder != kNoOwner && holder != owner) continue;
    if (!(promised[n] + task.per_replica).fits_in(node.allocatable)) continue;
    if (!matches_selector(node.labels, task.node_selector)) continue;
    if (!best || room(n) > room(*best)) best = n;
  }
  return best;
}

}  // namespace gantry::hub
