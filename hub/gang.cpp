#include "hub/gang.hpp"

#include <algorithm>

namespace gantry::hub {

std::int32_t GangShape::total_replicas() const {
  std::int32_t total = 0;
  for (const TaskShape& task : tasks) total += task.replicas;
  return total;
}

bool GangShape::topology_aware() const {
  if (topology.any()) return true;
  for (const TaskShape& task : tasks)
    if (task.partition_size > 0) return true;
  return false;
}

bool GangShape::topology_hard() const {
  if (topology.hard()) return true;
  for (const TaskShape& task : tasks)
    if (task.partition_size > 0 && task.partition_topology.hard()) return true;
  return false;
}

bool same_topology(const GangShape& a, const GangShape& b) {
  const auto same = [](const TopologyConstraint& x, const TopologyConstraint& y) {
    return x.mode == y.mode && x.highest_tier == y.highest_tier;
  };
  if (!same(a.topology, b.topology) || a.tasks.size() != b.tasks.size()) return false;
  for (std::size_t t = 0; t < a.tasks.size(); ++t) {
    const TaskShape& x = a.tasks[t];
    const TaskShape& y = b.tasks[t];
    if (x.partition_size != y.partition_size || x.min_partitions != y.min_partitions ||
        !same(x.partition_topology, y.partition_topology))
      return false;
  }
  return true;
}

ResourceVector GangShape::total() const {
  ResourceVector sum;
  for (const TaskShape& task : tasks) sum += task.per_replica * task.replicas;
  return sum;
}

void count_selected_gpu_products(GangShape& gang) {
  for (TaskShape& task : gang.tasks) {
    const auto product = task.node_selector.find(std::string(kGpuProductLabel));
    ResourceId id = kNoResource;
    if (product == task.node_selector.end() || task.per_replica.get(kGpu) <= 0 ||
        !gpu_product_resource(product->second, id))
      continue;
    task.per_replica.set(id, task.per_replica.get(kGpu));
  }
}

ResourceVector GangShape::minimum() const {
  // Cheapest replicas first, judged by GPUs then CPU: a lower bound, not exact,
  // which is all a quick reject needs.
  std::vector<const TaskShape*> order;
  for (const TaskShape& task : tasks) order.push_back(&task);
  std::sort(order.begin(), order.end(), [](const TaskShape* a, const TaskShape* b) {
    if (a->per_replica.get(kGpu) != b->per_replica.get(kGpu))
      return a->per_replica.get(kGpu) < b->per_replica.get(kGpu);
    return a->per_replica.get(kCpu) < b->per_replica.get(kCpu);
  });
  ResourceVector sum;
  std::int32_t remaining = min_available;
  for (const TaskShape* task : order) {
    const std::int32_t take = std::min(remaining, task->replicas);
    sum += task->per_replica * take;
    remaining -= take;
    if (remaining == 0) break;
  }
  return sum;
}

GangShape make_uniform_gang(std::int32_t replicas, const ResourceVector& per_replica) {
  GangShape gang;
  gang.tasks.push_back(TaskShape{"worker", replicas, per_replica, {}});
  gang.min_available = replicas;
  return gang;
}

GangShape make_gpu_gang(std::int64_t gpus, std::int64_t gpus_per_node) {
  const std::int64_t replicas =
      gpus <= gpus_per_node ? 1 : (gpus + gpus_per_node - 1) / gpus_per_node;
  const std::int64_t per_replica = gpus <= gpus_per_node ? gpus : gpus_per_node;
  ResourceVector request;
  request.set(kGpu, per_replica * kMilli);
  return make_uniform_gang(static_cast<std::int32_t>(replicas), request);
}

}  // namespace gantry::hub
