#include "hub/pending_shapes.hpp"

#include <algorithm>
#include <functional>

namespace gantry::hub {

namespace {

bool same_cluster_selector(const Job& a, const Job& b) {
  const Labels* x = a.cluster_selector();
  const Labels* y = b.cluster_selector();
  return x == y || (x != nullptr && y != nullptr && *x == *y);
}

// A pass always tries these for real: known_failure() never answers for them.
bool individual(const Job& job) {
  return job.sla_waiting_ms > 0 || job.has_backoffs();
}

void mix(std::size_t& seed, std::size_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

std::size_t shape_hash(const Job& job) {
  std::size_t seed = 0;
  mix(seed, job.queue);
  mix(seed, static_cast<std::size_t>(job.priority));
  mix(seed, job.may_preempt);
  mix(seed, static_cast<std::size_t>(job.time_limit_ms));
  mix(seed, job.split_allowed);
  mix(seed, static_cast<std::size_t>(job.gang.min_available));
  for (const TaskShape& task : job.gang.tasks) {
    mix(seed, static_cast<std::size_t>(task.replicas));
    mix(seed, static_cast<std::size_t>(task.per_replica.get(kGpu)));
  }
  return seed;
}

bool same_class(const Job& a, const Job& b) {
  return a.queue == b.queue && a.priority == b.priority && a.may_preempt == b.may_preempt &&
         a.time_limit_ms == b.time_limit_ms && dominates(a, b) && dominates(b, a);
}

Job prototype_of(const Job& job) {
  Job prototype;
  prototype.queue = job.queue;
  prototype.priority = job.priority;
  prototype.may_preempt = job.may_preempt;
  prototype.gang = job.gang;
  prototype.set_request(job.total, job.minimum());
  prototype.allowed_clusters = job.allowed_clusters;
  prototype.split_allowed = job.split_allowed;
  prototype.time_limit_ms = job.time_limit_ms;
  if (const Labels* selector = job.cluster_selector())
    prototype.notes().cluster_selector = *selector;
  return prototype;
}

}  // namespace

bool dominates(const Job& big, const Job& small) {
  if (big.gang.tasks.size() != small.gang.tasks.size() ||
      big.gang.min_available < small.gang.min_available ||
      big.allowed_clusters != small.allowed_clusters || big.split_allowed != small.split_allowed ||
      !same_cluster_selector(big, small) || !same_topology(big.gang, small.gang))
    return false;
  for (std::size_t t = 0; t < big.gang.tasks.size(); ++t) {
    const TaskShape& b = big.gang.tasks[t];
    const TaskShape& s = small.gang.tasks[t];
    if (b.replicas < s.replicas || !s.per_replica.fits_in(b.per_replica) ||
        b.node_selector != s.node_selector || b.tolerations != s.tolerations)
      return false;
  }
  return true;
}

void PendingShapes::ensure_queue(QueueIndex queue) {
  if (per_queue_.size() <= queue) {
    per_queue_.resize(queue + 1);
    individual_.resize(queue + 1, 0);
  }
}

ShapeClassId PendingShapes::add(const Job& job) {
  ensure_queue(job.queue);
  if (individual(job)) {
    ++individual_[job.queue];
    return kIndividualShape;
  }
  const std::size_t hash = shape_hash(job);
  const auto [first, last] = by_hash_.equal_range(hash);
  for (auto it = first; it != last; ++it) {
    ShapeClass& existing = classes_[it->second];
    if (same_class(existing.prototype, job)) {
      ++existing.pending;
      return it->second;
    }
  }
  ShapeClassId id;
  if (!free_ids_.empty()) {
    id = free_ids_.back();
    free_ids_.pop_back();
  } else {
    id = static_cast<ShapeClassId>(classes_.size());
    classes_.emplace_back();
  }
  classes_[id] = ShapeClass{prototype_of(job), hash, 1, {}, 0};
  by_hash_.emplace(hash, id);
  per_queue_[job.queue].push_back(id);
  return id;
}

void PendingShapes::remove(QueueIndex queue, ShapeClassId id) {
  if (id == kIndividualShape) {
    --individual_[queue];
    return;
  }
  ShapeClass& shape = classes_[id];
  if (--shape.pending > 0) return;
  const auto [first, last] = by_hash_.equal_range(shape.hash);
  for (auto it = first; it != last; ++it) {
    if (it->second != id) continue;
    by_hash_.erase(it);
    break;
  }
  std::erase(per_queue_[queue], id);
  shape.prototype = Job{};
  free_ids_.push_back(id);
}

const std::vector<ShapeClassId>& PendingShapes::classes_of(QueueIndex queue) const {
  static const std::vector<ShapeClassId> none;
  return queue < per_queue_.size() ? per_queue_[queue] : none;
}

std::uint32_t PendingShapes::individual_pending(QueueIndex queue) const {
  return queue < individual_.size() ? individual_[queue] : 0;
}

}  // namespace gantry::hub
