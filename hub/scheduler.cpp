#include "hub/scheduler.hpp"

#include <algorithm>
#include <stdexcept>

#include "hub/field_error.hpp"

namespace gantry::hub {

SchedulerCore::SchedulerCore(SchedulerOptions options) : options_(options) {
  ensure_queue("default");
}

// ------------------------------------------------------------------ clusters

ClusterIndex SchedulerCore::add_cluster(std::string_view name, Labels labels) {
  if (auto existing = find_cluster(name)) {
    clusters_[*existing].set_labels(std::move(labels));
    return *existing;
  }
  clusters_.emplace_back(std::string(name));
  clusters_.back().set_labels(std::move(labels));
  return static_cast<ClusterIndex>(clusters_.size() - 1);
}

std::optional<ClusterIndex> SchedulerCore::find_cluster(std::string_view name) const {
  for (ClusterIndex i = 0; i < clusters_.size(); ++i)
    if (clusters_[i].name() == name) return i;
  return std::nullopt;
}

void SchedulerCore::report_usage(ClusterIndex index, const std::vector<NodeSpec>& nodes,
                                 const std::vector<DispatchId>& accounted) {
  ClusterState& cluster = clusters_[index];
  cluster.set_nodes(nodes);
  for (auto& [id, dispatch] : dispatches_) {
    if (dispatch.cluster != index) continue;
    if (std::find(accounted.begin(), accounted.end(), id) != accounted.end()) {
      dispatch.reserved = false;
      continue;
    }
    if (!dispatch.reserved) continue;
    // Not in the report yet: keep holding what the hub promised it.
    for (const NodeAssignment& entry : dispatch.assignment)
      if (entry.node < cluster.node_count()) cluster.take(entry.node, entry.amount);
  }
}

std::vector<JobId> SchedulerCore::set_cluster_ready(ClusterIndex index, bool ready, TimeMs now) {
  std::vector<JobId> requeued;
  if (clusters_[index].ready() == ready) return requeued;
  clusters_[index].set_ready(ready);
  if (ready) return requeued;
  std::vector<DispatchId> lost;
  for (const auto& [id, dispatch] : dispatches_)
    if (dispatch.cluster == index) lost.push_back(id);
  std::sort(lost.begin(), lost.end());
  for (DispatchId id : lost) {
    const JobId job = dispatches_.at(id).job;
    release_dispatch(id);
    PendingReason reason;
    reason.kind = PendingReason::Kind::kClusterLost;
    reason.cluster = index;
    requeue(job, reason, now);
    requeued.push_back(job);
  }
  return requeued;
}

// ------------------------------------------------------------------ queues

QueueIndex SchedulerCore::ensure_queue(std::string_view name) {
  auto it = queue_by_name_.find(std::string(name));
  if (it != queue_by_name_.end()) return it->second;
  const QueueIndex index = static_cast<QueueIndex>(queues_.size());
  queues_.push_back(Queue{std::string(name), options_.default_strategy, {}});
  queue_by_name_.emplace(std::string(name), index);
  return index;
}

void SchedulerCore::set_queue_strategy(QueueIndex queue, QueueStrategy strategy) {
  queues_[queue].strategy = strategy;
}

// ------------------------------------------------------------------ jobs

JobId SchedulerCore::submit(JobRequest request, TimeMs now) {
  if (request.name.empty()) throw FieldError("metadata.name", "", "a job needs a name");
  if (job_by_name_.count(request.name))
    throw FieldError("metadata.name", request.name, "a job with this name already exists");
  const std::int32_t total = request.gang.total_replicas();
  if (total < 1) throw FieldError("spec.tasks", "", "a job needs at least one replica");
  if (request.gang.min_available < 1 || request.gang.min_available > total)
    throw FieldError("spec.minAvailable", std::to_string(request.gang.min_available),
                     "must be between 1 and the job's " + std::to_string(total) + " replicas");
  Job job;
  job.name = std::move(request.name);
  job.queue = ensure_queue(request.queue);
  job.priority = request.priority;
  job.sequence = next_sequence_++;
  job.submitted_ms = now;
  job.total = request.gang.total();
  job.minimum = request.gang.minimum();
  job.gang = std::move(request.gang);
  for (const std::string& cluster : request.allowed_clusters)
    job.allowed_clusters.push_back(add_cluster(cluster));
  job.spec = std::move(request.spec);
  const JobId id = static_cast<JobId>(jobs_.size());
  job_by_name_.emplace(job.name, id);
  jobs_.push_back(std::move(job));
  enqueue(id);
  return id;
}

void SchedulerCore::enqueue(JobId id) {
  Job& job = jobs_[id];
  job.phase = JobPhase::kPending;
  queues_[job.queue].pending.insert(PendingKey{-job.priority, job.sequence, id});
  ++pending_total_;
}

void SchedulerCore::dequeue(JobId id) {
  const Job& job = jobs_[id];
  if (queues_[job.queue].pending.erase(PendingKey{-job.priority, job.sequence, id})) --pending_total_;
}

const std::vector<Decision>& SchedulerCore::schedule(TimeMs now) {
  decisions_.clear();
  for (Queue& queue : queues_) {
    bool head_blocked = false;
    for (auto it = queue.pending.begin(); it != queue.pending.end();) {
      const JobId id = it->job;
      if (head_blocked) {
        jobs_[id].reason = PendingReason{PendingReason::Kind::kBehindQueueHead};
        ++it;
        continue;
      }
      if (try_place(id, now)) {
        it = queue.pending.erase(it);
        --pending_total_;
        continue;
      }
      head_blocked = queue.strategy == QueueStrategy::kStrictFifo;
      ++it;
    }
  }
  return decisions_;
}

bool SchedulerCore::cluster_allowed(const Job& job, ClusterIndex cluster) const {
  if (job.allowed_clusters.empty()) return true;
  return std::find(job.allowed_clusters.begin(), job.allowed_clusters.end(), cluster) !=
         job.allowed_clusters.end();
}

// Tries the clusters that could hold the gang, most packed first (best fit
// keeps whole empty clusters for the largest gangs), and commits the first
// node-level fit as a dispatch.
bool SchedulerCore::try_place(JobId id, TimeMs /*now*/) {
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
    const FitResult fit = placer_.place(clusters_[c], job.gang, assignment_scratch_);
    if (!fit.fits) {
      if (fit.placed > closest_placed_) {
        closest_placed_ = fit.placed;
        closest_cluster_ = c;
      }
      continue;
    }
    const DispatchId dispatch_id = next_dispatch_++;
    Dispatch dispatch{dispatch_id, id, c, assignment_scratch_, true,
                      std::vector<std::int32_t>(job.gang.tasks.size(), 0)};
    for (const NodeAssignment& entry : dispatch.assignment) ++dispatch.task_replicas[entry.task];
    dispatches_.emplace(dispatch_id, std::move(dispatch));
    job.phase = JobPhase::kDispatched;
    job.dispatch = dispatch_id;
    job.cluster = c;
    job.reason = PendingReason{PendingReason::Kind::kNone};
    decisions_.push_back(Decision{Decision::Kind::kDispatch, id, dispatch_id, c});
    return true;
  }
  record_failure(job);
  return false;
}

void SchedulerCore::admitted(DispatchId dispatch_id, TimeMs now) {
  auto it = dispatches_.find(dispatch_id);
  if (it == dispatches_.end()) return;
  Job& job = jobs_[it->second.job];
  if (job.phase != JobPhase::kDispatched) return;
  job.phase = JobPhase::kRunning;
  job.started_ms = now;
}

void SchedulerCore::rejected(DispatchId dispatch_id, std::string_view reason_text, TimeMs now) {
  auto it = dispatches_.find(dispatch_id);
  if (it == dispatches_.end()) return;
  const JobId id = it->second.job;
  const ClusterIndex cluster = it->second.cluster;
  release_dispatch(dispatch_id);
  Job& job = jobs_[id];
  job.rejected_by = cluster;
  job.rejected_at_generation = clusters_[cluster].report_generation();
  job.message = std::string(reason_text);
  PendingReason reason;
  reason.kind = PendingReason::Kind::kRejectedByCluster;
  reason.cluster = cluster;
  requeue(id, reason, now);
}

void SchedulerCore::update_tasks(DispatchId dispatch_id, std::vector<protocol::TaskStatus> tasks) {
  auto it = dispatches_.find(dispatch_id);
  if (it == dispatches_.end()) return;
  jobs_[it->second.job].tasks = std::move(tasks);
}

void SchedulerCore::finished(DispatchId dispatch_id, JobPhase phase, std::string_view message,
                             TimeMs now) {
  auto it = dispatches_.find(dispatch_id);
  if (it == dispatches_.end()) return;
  Job& job = jobs_[it->second.job];
  release_dispatch(dispatch_id);
  if (job.started_ms == 0) job.started_ms = now;
  job.phase = phase == JobPhase::kFailed ? JobPhase::kFailed : JobPhase::kCompleted;
  job.finished_ms = now;
  job.dispatch = 0;
  job.message = std::string(message);
}

std::optional<DispatchId> SchedulerCore::cancel(std::string_view name, TimeMs now) {
  auto found = find_job(name);
  if (!found) throw std::out_of_range("job \"" + std::string(name) + "\" not found");
  Job& job = jobs_[*found];
  if (is_terminal(job.phase)) return std::nullopt;
  std::optional<DispatchId> running;
  if (job.phase == JobPhase::kPending) {
    dequeue(*found);
  } else {
    running = job.dispatch;
    release_dispatch(job.dispatch);
  }
  job.phase = JobPhase::kAborted;
  job.finished_ms = now;
  job.dispatch = 0;
  return running;
}

void SchedulerCore::release_dispatch(DispatchId dispatch_id) {
  auto it = dispatches_.find(dispatch_id);
  if (it == dispatches_.end()) return;
  if (it->second.reserved) release(clusters_[it->second.cluster], it->second.assignment);
  dispatches_.erase(it);
}

void SchedulerCore::requeue(JobId id, PendingReason reason, TimeMs /*now*/) {
  Job& job = jobs_[id];
  job.dispatch = 0;
  job.started_ms = 0;
  job.reason = reason;
  ++job.requeues;
  enqueue(id);
}

// ------------------------------------------------------------------ queries

std::optional<JobId> SchedulerCore::find_job(std::string_view name) const {
  auto it = job_by_name_.find(std::string(name));
  if (it == job_by_name_.end()) return std::nullopt;
  return it->second;
}

const Dispatch* SchedulerCore::find_dispatch(DispatchId id) const {
  auto it = dispatches_.find(id);
  return it == dispatches_.end() ? nullptr : &it->second;
}

ResourceVector SchedulerCore::allocated_on(ClusterIndex index) const {
  const ClusterState& cluster = clusters_[index];
  return cluster.total_allocatable() - cluster.total_free();
}

}  // namespace gantry::hub
