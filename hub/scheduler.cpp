// Cluster, queue and job bookkeeping of the scheduling core; the pass itself
// is in scheduler_pass.cpp, evictions in preemption.cpp, starvation guards in
// starvation.cpp.
#include "hub/scheduler.hpp"

#include <algorithm>
#include <stdexcept>

#include "hub/field_error.hpp"

namespace gantry::hub {

SchedulerCore::SchedulerCore(SchedulerOptions options)
    : options_(options),
      next_dispatch_(std::max<DispatchId>(1, options.first_dispatch_id)),
      placer_(options.placement) {
  set_queue_strategy(*queues_.find("default"), options_.default_strategy);
}

// ------------------------------------------------------------------ clusters

ClusterIndex SchedulerCore::add_cluster(std::string_view name, Labels labels) {
  if (auto existing = find_cluster(name)) {
    clusters_[*existing].set_labels(std::move(labels));
    return *existing;
  }
  clusters_.emplace_back(std::string(name));
  clusters_.back().set_labels(std::move(labels));
  running_on_.emplace_back();
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
  std::vector<DispatchId> counted = accounted;
  std::sort(counted.begin(), counted.end());
  // Only this cluster's dispatches, from the per-cluster index: a report costs
  // O(its dispatches), not O(every dispatch in the hub).
  for (const RunningKey& key : running_on_[index]) {
    Dispatch& dispatch = dispatches_.at(key.dispatch);
    if (std::binary_search(counted.begin(), counted.end(), key.dispatch)) {
      dispatch.awaiting_report = false;
      continue;
    }
    if (!dispatch.awaiting_report) continue;
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
  for (const RunningKey& key : running_on_[index]) lost.push_back(key.dispatch);
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

ResourceVector SchedulerCore::pool_capacity() const {
  ResourceVector total;
  for (const ClusterState& cluster : clusters_)
    if (cluster.ready()) total += cluster.total_allocatable();
  return total;
}

// ------------------------------------------------------------------ queues

QueueIndex SchedulerCore::apply_queue(const QueueSpec& spec) {
  const QueueIndex index = queues_.apply(spec);
  refresh_queues();
  return index;
}

void SchedulerCore::delete_queue(std::string_view name) { queues_.remove(name); }

QueueIndex SchedulerCore::ensure_queue(std::string_view name) {
  if (auto existing = queues_.find(name)) return *existing;
  QueueSpec spec;
  spec.name = std::string(name);
  spec.strategy = options_.default_strategy;
  return apply_queue(spec);
}

void SchedulerCore::set_queue_strategy(QueueIndex queue, QueueStrategy strategy) {
  queues_.set_strategy(queue, strategy);
}

void SchedulerCore::refresh_queues() { queues_.refresh(pool_capacity()); }

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
  const std::optional<QueueIndex> queue = queues_.find(request.queue);
  if (!queue) throw FieldError("spec.queue", request.queue, "no such queue");
  if (!queues_.is_leaf(*queue))
    throw FieldError("spec.queue", request.queue, "the queue has child queues; submit to a leaf queue");
  if (!queues_.node(*queue).spec.open)
    throw FieldError("spec.queue", request.queue, "the queue is Closed and accepts no new jobs");
  Job job;
  job.name = std::move(request.name);
  job.queue = *queue;
  job.priority = request.priority;
  job.sequence = next_sequence_++;
  job.submitted_ms = now;
  count_selected_gpu_products(request.gang);
  job.total = request.gang.total();
  job.minimum = request.gang.minimum();
  job.gang = std::move(request.gang);
  job.sla_waiting_ms =
      request.sla_waiting_ms >= 0 ? request.sla_waiting_ms : queues_.node(*queue).spec.sla_waiting_ms;
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
  queues_.enqueue(job.queue, PendingKey{-job.priority, job.sequence, id}, job.total);
  if (job.sla_waiting_ms > 0) sla_watch_.insert(SlaKey{job.submitted_ms + job.sla_waiting_ms, job.sequence, id});
  ++pending_total_;
}

void SchedulerCore::dequeue(JobId id) {
  const Job& job = jobs_[id];
  if (!queues_.dequeue(job.queue, PendingKey{-job.priority, job.sequence, id}, job.total)) return;
  if (job.sla_waiting_ms > 0) sla_watch_.erase(SlaKey{job.submitted_ms + job.sla_waiting_ms, job.sequence, id});
  --pending_total_;
}

// Turns a placement that fits into a dispatch the agent will get.
void SchedulerCore::commit_dispatch(JobId id, const Placement& placement) {
  const DispatchId dispatch_id = next_dispatch_++;
  const Dispatch& dispatch = install_dispatch(id, placement.cluster, dispatch_id, placement.assignment, true);
  pass_.pool_free -= dispatch.held;
  jobs_[id].phase = JobPhase::kDispatched;
  decisions_.push_back(Decision{Decision::Kind::kDispatch, id, dispatch_id, placement.cluster});
}

// Takes the pending job out of its queue and charges it to the queue, holding
// `assignment` on the cluster's nodes under `dispatch_id`.
const Dispatch& SchedulerCore::install_dispatch(JobId id, ClusterIndex cluster, DispatchId dispatch_id,
                                                std::span<const NodeAssignment> assignment,
                                                bool awaiting_report) {
  Job& job = jobs_[id];
  dequeue(id);
  Dispatch dispatch{dispatch_id, id, cluster, {assignment.begin(), assignment.end()}, {}, {}, awaiting_report,
                    std::vector<std::int32_t>(job.gang.tasks.size(), 0)};
  for (const NodeAssignment& entry : dispatch.assignment) {
    ++dispatch.task_replicas[entry.task];
    dispatch.held += entry.amount;
    dispatch.amount += job.gang.tasks[entry.task].per_replica;
  }
  const RunningKey running{job.priority, -static_cast<std::int64_t>(job.sequence), dispatch_id};
  queues_.add_running(job.queue, running, dispatch.amount);
  running_on_[cluster].insert(running);
  job.dispatch = dispatch_id;
  job.cluster = cluster;
  job.reason = PendingReason{PendingReason::Kind::kNone};
  return dispatches_.emplace(dispatch_id, std::move(dispatch)).first->second;
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
  if (is_terminal(job.phase))
    throw std::invalid_argument("job \"" + job.name + "\" has already ended (" +
                                std::string(phase_name(job.phase)) + ")");
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

// Gives back what the dispatch holds: node resources the hub holds itself
// while the dispatch awaits a report (an accounted dispatch is freed by the
// agent's next report), and its share of its queue's allocation.
void SchedulerCore::release_dispatch(DispatchId dispatch_id) {
  auto it = dispatches_.find(dispatch_id);
  if (it == dispatches_.end()) return;
  const Dispatch& dispatch = it->second;
  if (dispatch.awaiting_report) {
    release(clusters_[dispatch.cluster], dispatch.assignment);
    pass_.pool_free += dispatch.held;
  }
  const Job& job = jobs_[dispatch.job];
  const RunningKey running{job.priority, -static_cast<std::int64_t>(job.sequence), dispatch_id};
  queues_.remove_running(job.queue, running, dispatch.amount);
  running_on_[dispatch.cluster].erase(running);
  dispatches_.erase(it);
}

void SchedulerCore::requeue(JobId id, PendingReason reason, TimeMs /*now*/) {
  Job& job = jobs_[id];
  job.dispatch = 0;
  job.started_ms = 0;
  job.reason = reason;
  job.requeue_cause = reason;
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
