// One scheduling pass: which queue is served next (hierarchical weighted DRF),
// whether its next job passes the queue limits, and where it fits.
#include <algorithm>

#include "hub/scheduler.hpp"

namespace gantry::hub {

const std::vector<Decision>& SchedulerCore::schedule(TimeMs now) {
  decisions_.clear();
  refresh_queues();
  pool_free_ = {};
  for (ClusterState& cluster : clusters_) {
    cluster.clear_reservations();
    if (cluster.ready()) pool_free_ += cluster.total_free();
  }
  tried_eviction_.assign(queues_.size(), 0);
  failed_shapes_.clear();
  eviction_searches_left_ = options_.eviction_searches_per_pass;
  pass_now_ = now;
  pass_first_dispatch_ = next_dispatch_;
  serve_starving(now);
  serve_queues(now);
  return decisions_;
}

// ------------------------------------------------------------------ queue order

void SchedulerCore::begin_pass() {
  const std::size_t n = queues_.size();
  active_children_.assign(n, {});
  active_.assign(n, 0);
  cursor_.resize(n);
  for (QueueIndex q = 0; q < n; ++q) {
    QueueNode& node = queues_.node(q);
    node.share = queues_.weighted_share(q);
    if (node.deleted || !queues_.is_leaf(q) || q == kRootQueue || node.pending_jobs.empty()) continue;
    cursor_[q] = node.pending_jobs.begin();
    activate(q);
  }
}

void SchedulerCore::activate(QueueIndex leaf) {
  for (QueueIndex q = leaf; q != kRootQueue && !active_[q]; q = queues_.node(q).parent) {
    const QueueNode& node = queues_.node(q);
    active_[q] = 1;
    active_children_[node.parent].insert(ActiveKey{-node.spec.priority, node.share, q});
  }
}

void SchedulerCore::deactivate(QueueIndex leaf) {
  for (QueueIndex q = leaf; q != kRootQueue && active_[q]; q = queues_.node(q).parent) {
    const QueueNode& node = queues_.node(q);
    active_[q] = 0;
    active_children_[node.parent].erase(ActiveKey{-node.spec.priority, node.share, q});
    if (!active_children_[node.parent].empty()) break;
  }
}

// The queue's allocation changed: its share, and its ancestors', moved.
void SchedulerCore::reposition(QueueIndex leaf) {
  for (QueueIndex q = leaf; q != kRootQueue; q = queues_.node(q).parent) {
    QueueNode& node = queues_.node(q);
    const double share = queues_.weighted_share(q);
    if (active_.size() > q && active_[q]) {
      auto& siblings = active_children_[node.parent];
      siblings.erase(ActiveKey{-node.spec.priority, node.share, q});
      siblings.insert(ActiveKey{-node.spec.priority, share, q});
    }
    node.share = share;
  }
}

QueueIndex SchedulerCore::pick_queue() const {
  QueueIndex q = kRootQueue;
  while (!queues_.is_leaf(q)) q = active_children_[q].begin()->queue;
  return q;
}

void SchedulerCore::serve_queues(TimeMs now) {
  begin_pass();
  while (!active_children_[kRootQueue].empty()) {
    const QueueIndex leaf = pick_queue();
    QueueNode& queue = queues_.node(leaf);
    auto& cursor = cursor_[leaf];
    const JobId id = cursor->job;
    auto next = std::next(cursor);
    if (attempt(id, now)) {  // the job left pending_jobs: its iterator is gone
      cursor = next;
      reposition(leaf);
    } else if (queue.spec.strategy == QueueStrategy::kStrictFifo) {
      deactivate(leaf);
      continue;
    } else {
      cursor = next;
    }
    if (cursor == queue.pending_jobs.end()) deactivate(leaf);
  }
}

// ------------------------------------------------------------------ one job

bool SchedulerCore::attempt(JobId id, TimeMs now) {
  ++placement_attempts_;
  Job& job = jobs_[id];
  if (!passes_queue_limits(job)) return false;
  if (!known_to_fail(job)) {
    if (try_place(id)) return true;
    remember_failure(job);
  }
  return make_room(id, now);
}

namespace {

// `big` asks at least as much as `small` in every way placement looks at.
bool dominates(const Job& big, const Job& small) {
  if (big.gang.tasks.size() != small.gang.tasks.size() || big.gang.min_available < small.gang.min_available ||
      big.allowed_clusters != small.allowed_clusters)
    return false;
  for (std::size_t t = 0; t < big.gang.tasks.size(); ++t) {
    const TaskShape& b = big.gang.tasks[t];
    const TaskShape& s = small.gang.tasks[t];
    if (b.replicas < s.replicas || !s.per_replica.fits_in(b.per_replica) || b.node_selector != s.node_selector)
      return false;
  }
  return true;
}

constexpr std::size_t kMaxFailedShapes = 32;

}  // namespace

// Jobs with their own view of the pool (a cluster that refused them, nodes
// held for them) are always tried for real.
bool SchedulerCore::known_to_fail(Job& job) const {
  if (job.rejected_by != kNoCluster) return false;
  if (job.sla_waiting_ms > 0 && job.submitted_ms + job.sla_waiting_ms <= pass_now_) return false;
  for (const FailedShape& failed : failed_shapes_) {
    if (!dominates(job, *failed.job)) continue;
    job.reason = failed.reason;
    job.reason.replicas_needed = job.gang.min_available;
    job.reason.needed = job.minimum.get(job.reason.resource);
    return true;
  }
  return false;
}

void SchedulerCore::remember_failure(const Job& job) {
  if (failed_shapes_.size() >= kMaxFailedShapes || job.rejected_by != kNoCluster) return;
  if (job.sla_waiting_ms > 0 && job.submitted_ms + job.sla_waiting_ms <= pass_now_) return;
  failed_shapes_.push_back(FailedShape{&job, job.reason});
}

// Capability of the queue and its ancestors, then the guarantees other queues
// hold but do not use: a job may not start on resources promised elsewhere.
bool SchedulerCore::passes_queue_limits(Job& job) {
  QueueIndex capped = 0;
  ResourceId resource = 0;
  if (!queues_.within_capability(job.queue, job.minimum, capped, resource)) {
    PendingReason reason{PendingReason::Kind::kQueueAtCapability};
    reason.queue = capped;
    reason.resource = resource;
    reason.needed = queues_.node(capped).allocated.get(resource) + job.minimum.get(resource);
    reason.available = queues_.node(capped).spec.capability.value.get(resource);
    job.reason = reason;
    return false;
  }
  const ResourceVector usable = pool_free_ - queues_.reserved_for_others(job.queue);
  if (!job.minimum.fits_in(usable)) {
    // Only a shortage caused by guarantees is reported here; a plain lack of
    // capacity is found, with per-cluster detail, by try_place.
    if (!job.minimum.fits_in(pool_free_)) return true;
    PendingReason reason{PendingReason::Kind::kGuaranteedToOthers};
    job.minimum.first_excess(usable, reason.resource);
    reason.needed = job.minimum.get(reason.resource);
    reason.available = std::max<std::int64_t>(0, usable.get(reason.resource));
    job.reason = reason;
    return false;
  }
  return true;
}

// Tries the clusters that could hold the gang, most packed first (best fit
// keeps whole empty clusters for the largest gangs), and commits the first
// node-level fit as a dispatch.
bool SchedulerCore::try_place(JobId id) {
  Job& job = jobs_[id];
  candidates_.clear();
  for (ClusterIndex c = 0; c < clusters_.size(); ++c) {
    const ClusterState& cluster = clusters_[c];
    if (!cluster.ready() || !cluster_allowed(job, c)) continue;
    if (job.rejected_by == c && job.rejected_at_generation == cluster.report_generation()) continue;
    if (!job.minimum.fits_in(cluster.total_free())) continue;
    candidates_.push_back(c);
  }
  std::sort(candidates_.begin(), candidates_.end(), [&](ClusterIndex a, ClusterIndex b) {
    const auto free_a = clusters_[a].total_free().get(kGpu);
    const auto free_b = clusters_[b].total_free().get(kGpu);
    return free_a != free_b ? free_a < free_b : a < b;
  });
  closest_cluster_ = kNoCluster;
  closest_placed_ = -1;
  for (ClusterIndex c : candidates_) {
    const FitResult fit = placer_.place(clusters_[c], job.gang, assignment_scratch_, id);
    if (fit.fits) {
      commit_dispatch(id, c);
      return true;
    }
    if (fit.placed > closest_placed_) {
      closest_placed_ = fit.placed;
      closest_cluster_ = c;
    }
  }
  record_failure(job);
  return false;
}

}  // namespace gantry::hub
