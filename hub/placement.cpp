#include "hub/placement.hpp"

#include <algorithm>
#include <numeric>
#include <optional>

namespace gantry::hub {

namespace {

std::int64_t whole_gpus_needed(const ResourceVector& request) {
  return (request.get(kGpu) + kMilli - 1) / kMilli;
}

// Necessary condition, O(max GPUs per node): enough GPU slots of each task's
// size across the cluster's nodes. Rejects most hopeless gangs without touching
// a node. Returns how many replicas the slots could hold at most.
std::int32_t gpu_slot_bound(const ClusterState& cluster, const GangShape& gang) {
  std::int32_t bound = gang.total_replicas();
  for (const TaskShape& task : gang.tasks) {
    const std::int64_t gpus = whole_gpus_needed(task.per_replica);
    if (gpus == 0) continue;
    std::int64_t slots = 0;
    for (std::int64_t bucket = gpus; bucket <= cluster.max_node_gpus(); ++bucket)
      slots +=
          static_cast<std::int64_t>(cluster.nodes_with_free_gpus(bucket).size()) * (bucket / gpus);
    if (slots < task.replicas) bound -= task.replicas - static_cast<std::int32_t>(slots);
  }
  return bound;
}

}  // namespace

FitResult GangPlacer::place(ClusterState& cluster, const GangShape& gang,
                            std::vector<NodeAssignment>& out, std::uint32_t requester,
                            const PlacementPolicy* policy, const ReplicaTiming& timing) {
  const PlacementPolicy& chooser = policy ? *policy : policy_;
  out.clear();
  const std::int32_t bound = gpu_slot_bound(cluster, gang);
  if (bound < gang.min_available) return FitResult{false, bound};
  if (gang.topology.any()) return place_in_topology(cluster, gang, out, requester, chooser);
  return place_greedy(cluster, gang, out, requester, chooser, NodeScope{}, timing);
}

FitResult GangPlacer::place_greedy(ClusterState& cluster, const GangShape& gang,
                                   std::vector<NodeAssignment>& out, std::uint32_t requester,
                                   const PlacementPolicy& chooser, const NodeScope& scope,
                                   const ReplicaTiming& timing) {
  const std::size_t mark = out.size();
  task_order_.resize(gang.tasks.size());
  std::iota(task_order_.begin(), task_order_.end(), 0u);
  std::sort(task_order_.begin(), task_order_.end(), [&](std::uint32_t a, std::uint32_t b) {
    const ResourceVector& ra = gang.tasks[a].per_replica;
    const ResourceVector& rb = gang.tasks[b].per_replica;
    if (ra.get(kGpu) != rb.get(kGpu)) return ra.get(kGpu) > rb.get(kGpu);
    if (ra.get(kCpu) != rb.get(kCpu)) return ra.get(kCpu) > rb.get(kCpu);
    return a < b;
  });
  std::int32_t unplaced_left = gang.total_replicas();
  std::int32_t placed = 0;
  bool hopeless = false;
  for (std::uint32_t task_index : task_order_) {
    const TaskShape& task = gang.tasks[task_index];
    const std::int32_t here =
        task.partition_size > 0
            ? place_partitions(cluster, task_index, task, out, requester, chooser, scope)
            : place_replicas(cluster, task_index, task.replicas, task, out, requester, chooser,
                             scope, timing);
    placed += here;
    unplaced_left -= task.replicas;
    // minPartitions: fewer whole partitions than that and the gang cannot start.
    const bool too_few_partitions =
        here < std::min(task.replicas, task.min_partitions * task.partition_size);
    if (too_few_partitions || placed + unplaced_left < gang.min_available) {
      hopeless = true;
      break;
    }
  }
  if (hopeless || placed < gang.min_available) {
    release_from(cluster, out, mark);
    return FitResult{false, placed};
  }
  return FitResult{true, placed};
}

std::int32_t GangPlacer::place_replicas(ClusterState& cluster, std::uint32_t task_index,
                                        std::int32_t count, const TaskShape& task,
                                        std::vector<NodeAssignment>& out, std::uint32_t requester,
                                        const PlacementPolicy& chooser, const NodeScope& scope,
                                        const ReplicaTiming& timing) {
  std::int32_t r = 0;
  for (; r < count; ++r) {
    const std::optional<NodeIndex> node =
        scope.every ? chooser.choose_node(cluster, task, requester, timing)
                    : choose_node_in(cluster, scope, task, requester, chooser.node_order());
    if (!node) break;  // identical replicas: the rest of this task cannot fit either
    const ResourceVector held = cluster.held_on(*node, task.per_replica);
    cluster.take(*node, held);
    out.push_back(NodeAssignment{task_index, *node, held});
  }
  return r;
}

FitResult GangPlacer::check(ClusterState& cluster, const GangShape& gang, std::uint32_t requester,
                            const PlacementPolicy* policy) {
  FitResult result = place(cluster, gang, scratch_, requester, policy);
  if (result.fits) release(cluster, scratch_);
  scratch_.clear();
  return result;
}

void release(ClusterState& cluster, const std::vector<NodeAssignment>& assignment) {
  for (const NodeAssignment& entry : assignment) cluster.give(entry.node, entry.amount);
}

void release_from(ClusterState& cluster, std::vector<NodeAssignment>& assignment,
                  std::size_t from) {
  for (std::size_t i = from; i < assignment.size(); ++i)
    cluster.give(assignment[i].node, assignment[i].amount);
  assignment.resize(from);
}

}  // namespace gantry::hub
