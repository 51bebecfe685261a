#include "hub/placement_policy.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "hub/ocm_score.hpp"
#include "hub/topology_score.hpp"

namespace gantry::hub {

namespace {

std::int64_t whole_gpus_needed(const ResourceVector& request) {
  return (request.get(kGpu) + kMilli - 1) / kMilli;
}

// The GPUs a job's scores count: the product its node selector names, if any,
// else nvidia.com/gpu.
ResourceId gpu_resource_of(const Job& job) {
  for (ResourceId r = kGpu + 1; r < kMaxResources; ++r)
    if (job.minimum().get(r) > 0 && is_gpu_product(r)) return r;
  return kGpu;
}

// ------------------------------------------------------------------ scores

// Fewest free GPUs first: best fit across clusters.
std::int64_t most_packed(const ScoreInput& input) {
  const ClusterState& cluster = input.cluster;
  return -cluster.total_free().get(kGpu);
}

std::int64_t most_free(const ScoreInput& input) {
  const ClusterState& cluster = input.cluster;
  return cluster.total_free().get(kGpu);
}

// Minus the whole GPUs left free on the nodes the gang would take, placing
// its replicas largest first, each on the best-fitting node by free whole GPUs
// (the placer's order). An estimate from the free-GPU index alone: CPU,
// memory, selectors and holds are left to the node-level fit that follows.
// O(replicas x GPUs per node), nodes untouched.
std::int64_t fewest_gpus_left_on_nodes(const ScoreInput& input) {
  const ClusterState& cluster = input.cluster;
  const Job& job = input.job;
  if (job.gang.total_replicas() == 1) {  // most jobs: the best-fitting bucket alone
    const std::int64_t gpus = whole_gpus_needed(job.gang.tasks.front().per_replica);
    if (gpus == 0) return 0;
    for (std::int64_t bucket = gpus; bucket <= cluster.max_node_gpus(); ++bucket)
      if (!cluster.nodes_with_free_gpus(bucket).empty()) return -(bucket - gpus);
    return 0;
  }
  const std::size_t buckets =
      static_cast<std::size_t>(std::max<std::int64_t>(0, cluster.max_node_gpus())) + 1;
  // Nodes the gang has not touched / has touched, by free whole GPUs.
  thread_local std::vector<std::int64_t> untouched, touched;
  untouched.assign(buckets, 0);
  touched.assign(buckets, 0);
  for (std::size_t b = 0; b < buckets; ++b)
    untouched[b] = static_cast<std::int64_t>(
        cluster.nodes_with_free_gpus(static_cast<std::int64_t>(b)).size());
  std::int64_t free_before = 0;  // on the nodes it touched, before it came
  std::int64_t placed = 0;
  auto take = [&](std::int64_t gpus) {
    for (std::size_t b = static_cast<std::size_t>(gpus); b < buckets; ++b) {
      if (touched[b] > 0) {
        --touched[b];
      } else if (untouched[b] > 0) {
        --untouched[b];
        free_before += static_cast<std::int64_t>(b);
      } else {
        continue;
      }
      ++touched[b - static_cast<std::size_t>(gpus)];
      placed += gpus;
      return true;
    }
    return false;
  };
  // Largest replicas first, as the placer goes; gangs have few tasks.
  std::int64_t previous = std::numeric_limits<std::int64_t>::max();
  while (true) {
    std::int64_t largest = -1;
    for (const TaskShape& task : job.gang.tasks) {
      const std::int64_t gpus = whole_gpus_needed(task.per_replica);
      if (gpus > 0 && gpus < previous) largest = std::max(largest, gpus);
    }
    if (largest < 0) break;
    for (const TaskShape& task : job.gang.tasks) {
      if (whole_gpus_needed(task.per_replica) != largest) continue;
      for (std::int32_t r = 0; r < task.replicas && take(largest); ++r) {
      }
    }
    previous = largest;
  }
  return -(free_before - placed);
}

// OCM's gpuNodeAvailable: the node with the most free GPUs of the kind the
// job counts, normalised over OCM's range.
std::int64_t gpu_node_available(const ScoreInput& input) {
  const ClusterState& cluster = input.cluster;
  const Job& job = input.job;
  const ResourceId gpu = gpu_resource_of(job);
  double most = 0;
  if (gpu == kGpu) {  // whole free GPUs, from the index (GPUs are requested whole)
    for (std::int64_t b = cluster.max_node_gpus(); b > 0 && most == 0; --b)
      if (!cluster.nodes_with_free_gpus(b).empty()) most = static_cast<double>(b);
  } else {
    for (NodeIndex n = 0; n < cluster.node_count(); ++n)
      most = std::max(most, static_cast<double>(cluster.node(n).free.get(gpu)) / kMilli);
  }
  return ocm_normalize(most, 0, kOcmMaxGpus);
}

// OCM's gpuClusterAvailable: every node's free GPUs, summed and normalised.
std::int64_t gpu_cluster_available(const ScoreInput& input) {
  const ClusterState& cluster = input.cluster;
  const Job& job = input.job;
  const ResourceId gpu = gpu_resource_of(job);
  return ocm_normalize(static_cast<double>(cluster.total_free().get(gpu)) / kMilli, 0, kOcmMaxGpus);
}

// How good a node is for a replica in space and time; lower is better.
struct TimedFit {
  std::int64_t tier = 0;
  std::int64_t cost = 0;
  std::int64_t left = 0;  // free whole GPUs the replica leaves on the node

  bool operator<(const TimedFit& other) const {
    if (tier != other.tier) return tier < other.tier;
    if (cost != other.cost) return cost < other.cost;
    return left < other.left;
  }
};

// A plan for a gang (drain_first): the node that drains first. Otherwise the
// node whose busy time the replica extends least: a node it fills exactly
// while idle; then nodes busy at least as long as it runs, the one draining
// soonest after it first; then nodes it keeps busy longer, by the least; idle
// nodes last, since breaking one costs a whole node for as long as it runs.
TimedFit timed_fit(std::int64_t drain, std::int64_t left, const ReplicaTiming& timing) {
  if (timing.drain_first) return TimedFit{0, drain, left};
  const std::int64_t end = timing.end;
  if (drain == kIdleNode) return TimedFit{left == 0 ? 0 : 3, 0, left};
  if (drain >= end) return TimedFit{1, drain - end, left};
  return TimedFit{2, end - drain, left};
}

// The registration table: a new score is a function above and a row here.
constexpr std::array kClusterScores{
    ClusterScore{"fewest-gpus-left-on-nodes", &fewest_gpus_left_on_nodes, 1},
    ClusterScore{"most-packed", &most_packed, 1},
    ClusterScore{"most-free", &most_free, 1},
    ClusterScore{"gpuNodeAvailable", &gpu_node_available, 1},
    ClusterScore{"gpuClusterAvailable", &gpu_cluster_available, 1},
    ClusterScore{"gpus-in-one-domain", &gpus_in_one_domain, 1},
};

const ClusterScore& score_named(std::string_view name) {
  return *find_cluster_score(name);
}

// The policy table: what a queue's gantry.io/placement may name.
// `score` counted `weight` times.
ClusterScore weighted(ClusterScore score, std::int64_t weight) {
  score.weight = weight;
  return score;
}

// A gang's GPUs are at most a few thousand, and so is what binpack's score
// leaves: a million times the first keeps the topology fit first.
constexpr std::int64_t kDominant = 1'000'000;

const std::array<PlacementPolicy, 4>& registered_policies() {
  static const std::array<PlacementPolicy, 4> policies{
      PlacementPolicy("binpack", {score_named("fewest-gpus-left-on-nodes")}, NodeOrder::kBestFit,
                      &score_named("most-packed")),
      PlacementPolicy("spread", {score_named("most-free")}, NodeOrder::kWorstFit),
      PlacementPolicy("gpu-available",
                      {score_named("gpuNodeAvailable"), score_named("gpuClusterAvailable")},
                      NodeOrder::kWorstFit, &score_named("most-free")),
      PlacementPolicy("topology",
                      {weighted(score_named("gpus-in-one-domain"), kDominant),
                       score_named("fewest-gpus-left-on-nodes")},
                      NodeOrder::kBestFit, &score_named("most-packed")),
  };
  return policies;
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

const PlacementPolicy* find_placement_policy(std::string_view name) {
  for (const PlacementPolicy& policy : registered_policies())
    if (policy.name() == name) return &policy;
  return nullptr;
}

std::string placement_policy_names() {
  std::string names;
  for (const PlacementPolicy& policy : registered_policies())
    names += (names.empty() ? "" : ", ") + policy.name();
  return names;
}

PlacementPolicy::PlacementPolicy() : PlacementPolicy(*find_placement_policy("binpack")) {}

PlacementPolicy::PlacementPolicy(std::string name, std::vector<ClusterScore> scores,
                                 NodeOrder order, const ClusterScore* tie_break)
    : name_(std::move(name)), scores_(std::move(scores)), order_(order), tie_break_(tie_break) {}

PlacementPolicy::PlacementPolicy(std::vector<ClusterScore> scores)
    : PlacementPolicy("custom", std::move(scores)) {}

const PlacementPolicy& PlacementPolicy::standard() {
  return *find_placement_policy("binpack");
}

// ------------------------------------------------------------------ eligibility

bool PlacementPolicy::eligible(const ClusterState& cluster, ClusterIndex index, const Job& job) {
  return first_refusing(FilterInput{cluster, index, job, 0}, FilterScope::kEligible) == nullptr;
}

bool PlacementPolicy::worth_trying(const ClusterState& cluster, ClusterIndex index, const Job& job,
                                   TimeMs now) {
  return first_refusing(FilterInput{cluster, index, job, now}, FilterScope::kWorthTrying) ==
         nullptr;
}

// ------------------------------------------------------------------ ranking

std::int64_t PlacementPolicy::score(const ScoreInput& input) const {
  std::int64_t total = 0;
  for (const ClusterScore& each : scores_) total += each.weight * each.score(input);
  return total;
}

void PlacementPolicy::rank_clusters(const std::vector<ClusterState>& clusters, const Job& job,
                                    const TopologyTiers& tiers, TimeMs now,
                                    std::vector<RankedCluster>& out) const {
  out.clear();
  for (ClusterIndex c = 0; c < clusters.size(); ++c) {
    if (!worth_trying(clusters[c], c, job, now)) continue;
    const ScoreInput input{clusters[c], job, tiers};
    const std::int64_t tie = tie_break_ ? tie_break_->score(input) : 0;
    out.push_back(RankedCluster{c, score(input), tie});
  }
  std::sort(out.begin(), out.end(), [](const RankedCluster& a, const RankedCluster& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.tie != b.tie) return a.tie > b.tie;
    return a.cluster < b.cluster;
  });
}

ClusterIndex PlacementPolicy::choose_hold_cluster(std::span<const ClusterState> clusters,
                                                  const Job& job) const {
  ClusterIndex chosen = kNoCluster;
  for (ClusterIndex c = 0; c < clusters.size(); ++c) {
    const ClusterState& cluster = clusters[c];
    if (!eligible(cluster, c, job) || cluster.fully_held() ||
        !job.minimum().fits_in(cluster.total_allocatable()))
      continue;
    if (chosen == kNoCluster ||
        cluster.total_free().get(kGpu) > clusters[chosen].total_free().get(kGpu))
      chosen = c;
  }
  return chosen;
}

// ------------------------------------------------------------------ nodes

bool PlacementPolicy::matches_selector(const Labels& labels, const Labels& selector) {
  return labels_match(labels, selector);
}

std::optional<NodeIndex> PlacementPolicy::choose_node(const ClusterState& cluster,
                                                      const TaskShape& task,
                                                      std::uint32_t requester,
                                                      const ReplicaTiming& timing) const {
  const std::int64_t gpus = whole_gpus_needed(task.per_replica);
  const bool holds = cluster.has_holds();
  const auto usable = [&](NodeIndex index) {
    if (holds && cluster.held_for(index) != kNoOwner && cluster.held_for(index) != requester)
      return false;
    const Node& node = cluster.node(index);
    return task.per_replica.fits_in(node.free) && may_run_on(node, task);
  };
  const auto fitting_in = [&](std::int64_t bucket) -> std::optional<NodeIndex> {
    for (NodeIndex index : cluster.nodes_with_free_gpus(bucket))
      if (usable(index)) return index;
    return std::nullopt;
  };
  if (order_ == NodeOrder::kBestFit && timing.any() && gpus > 0) {
    std::optional<NodeIndex> best;
    TimedFit best_fit;
    for (std::int64_t bucket = gpus; bucket <= cluster.max_node_gpus(); ++bucket)
      for (NodeIndex index : cluster.nodes_with_free_gpus(bucket)) {
        if (!usable(index)) continue;
        const TimedFit fit = timed_fit(cluster.drain_time(index), bucket - gpus, timing);
        if (!best || fit < best_fit) {
          best = index;
          best_fit = fit;
        }
      }
    return best;
  }
  if (order_ == NodeOrder::kBestFit) {
    for (std::int64_t bucket = gpus; bucket <= cluster.max_node_gpus(); ++bucket)
      if (auto node = fitting_in(bucket)) return node;
  } else {
    for (std::int64_t bucket = cluster.max_node_gpus(); bucket >= gpus; --bucket)
      if (auto node = fitting_in(bucket)) return node;
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
    if (!may_run_on(node, task)) continue;
    if (!best || room(n) > room(*best)) best = n;
  }
  return best;
}

std::string untolerated_taints(const ClusterState& cluster, const TaskShape& task, NodeRoom room) {
  constexpr std::size_t kMaxNamed = 3;
  if (!cluster.has_tainted_nodes()) return "";
  std::vector<std::string> named;
  bool more = false;
  for (NodeIndex n = 0; n < cluster.node_count(); ++n) {
    const Node& node = cluster.node(n);
    if (node.taints.empty() || !PlacementPolicy::matches_selector(node.labels, task.node_selector))
      continue;
    if ((room == NodeRoom::kAllocatable && !task.per_replica.fits_in(node.allocatable)) ||
        (room == NodeRoom::kFree && !task.per_replica.fits_in(node.free)))
      continue;
    const protocol::Taint* taint = first_untolerated(node.taints, task.tolerations);
    if (taint == nullptr) continue;
    std::string text = taint_text(*taint);
    if (std::find(named.begin(), named.end(), text) != named.end()) continue;
    if (named.size() == kMaxNamed) {
      more = true;
      break;
    }
    named.push_back(std::move(text));
  }
  std::string joined;
  for (const std::string& text : named) joined += (joined.empty() ? "" : ", ") + text;
  return more ? joined + ", ..." : joined;
}

}  // namespace gantry::hub
