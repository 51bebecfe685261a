// Cluster, queue and job bookkeeping of the scheduling core; the pass itself
// is in scheduler_pass.cpp (its queue stage in queue_stage.cpp), split
// placement in split.cpp, evictions in preemption.cpp, starvation guards in
// starvation.cpp, the two-phase answers of agents in two_phase.cpp.
#include "hub/scheduler.hpp"

#include <algorithm>
#include <stdexcept>

#include "hub/elastic.hpp"
#include "hub/field_error.hpp"
#include "hub/time_limit.hpp"

namespace gantry::hub {

SchedulerCore::SchedulerCore(SchedulerOptions options)
    : options_(options),
      next_dispatch_(std::max<DispatchId>(1, options.first_dispatch_id)),
      placer_(options.placement, options.topology_tiers) {
  set_queue_strategy(*queues_.find("default"), options_.default_strategy);
  refresh_queue_policies();
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
  over_share_on_.emplace_back();
  elastic_on_.emplace_back();
  backfill_.add_cluster();
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
    DispatchPart& part = *dispatch.part_on(index);
    if (!dispatch.growing.empty() && dispatch.parts.back().cluster == index)
      for (const NodeAssignment& entry : dispatch.growing)  // no agent counts it yet
        if (entry.node < cluster.node_count()) cluster.take(entry.node, entry.amount);
    if (std::binary_search(counted.begin(), counted.end(), key.dispatch)) {
      part.awaiting_report = false;
      part.left_report = false;
      continue;
    }
    if (!part.awaiting_report) {
      part.left_report = true;
      continue;
    }
    // Not in the report yet: keep holding what the hub promised it.
    for (const NodeAssignment& entry : part.assignment)
      if (entry.node < cluster.node_count()) cluster.take(entry.node, entry.amount);
  }
  backfill_.forget_reported_ends(index, counted);
}

void SchedulerCore::record_observed_usage(ClusterIndex index, ObservedUsage usage) {
  clusters_[index].set_observed_usage(std::move(usage));
}

void SchedulerCore::set_cluster_ready(ClusterIndex index, bool ready) {
  clusters_[index].set_ready(ready);
}

void SchedulerCore::set_agent_not_ready(ClusterIndex index, std::string reason) {
  clusters_[index].set_agent_not_ready(std::move(reason));
}

void SchedulerCore::set_cordoned(ClusterIndex index, bool cordoned) {
  clusters_[index].set_cordoned(cordoned);
}

// The dispatches with a part on the cluster, in id order (deterministic).
static std::vector<DispatchId> dispatch_ids_on(const std::set<RunningKey>& running) {
  std::vector<DispatchId> ids;
  ids.reserve(running.size());
  for (const RunningKey& key : running) ids.push_back(key.dispatch);
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<WithdrawnDispatch> SchedulerCore::cluster_lost(ClusterIndex index, TimeMs now) {
  clusters_[index].set_ready(false);
  std::vector<WithdrawnDispatch> withdrawn;
  PendingReason reason{PendingReason::Kind::kClusterLost};
  reason.cluster = index;
  for (DispatchId id : dispatch_ids_on(running_on_[index]))
    withdraw(id, reason, now, withdrawn, LifecycleEvent::kJobUnknown);
  return withdrawn;
}

std::vector<WithdrawnDispatch> SchedulerCore::drain(ClusterIndex index, TimeMs now) {
  clusters_[index].set_cordoned(true);
  std::vector<WithdrawnDispatch> stopping;
  for (DispatchId id : dispatch_ids_on(running_on_[index])) {
    Dispatch& dispatch = dispatches_.at(id);
    if (!dispatch.committed) {  // never started: give it up at once
      PendingReason reason{PendingReason::Kind::kDrained};
      reason.cluster = index;
      withdraw(id, reason, now, stopping);
      continue;
    }
    WithdrawnDispatch& entry = stopping.emplace_back(WithdrawnDispatch{id, dispatch.job, {}});
    for (DispatchPart& part : dispatch.parts) {
      if (part.state == PartState::kEnded) continue;
      part.state = PartState::kStopping;
      entry.clusters.push_back(part.cluster);
    }
    Job& job = jobs_[dispatch.job];
    PendingReason& cause = job.edit_history().requeue_cause;
    cause = PendingReason{PendingReason::Kind::kDrained};
    cause.cluster = index;
  }
  return stopping;
}

// Releases the dispatch and requeues its job; records which clusters ran parts.
void SchedulerCore::withdraw(DispatchId id, PendingReason reason, TimeMs now,
                             std::vector<WithdrawnDispatch>& out, LifecycleEvent event) {
  const Dispatch& dispatch = dispatches_.at(id);
  WithdrawnDispatch entry{id, dispatch.job, {}};
  for (const DispatchPart& part : dispatch.parts)
    if (part.state != PartState::kEnded) entry.clusters.push_back(part.cluster);
  release_dispatch(id);
  requeue_or_apply(entry.job, reason, event, now);
  out.push_back(std::move(entry));
}

std::vector<WithdrawnDispatch> SchedulerCore::part_fenced(DispatchId id, ClusterIndex cluster,
                                                          TimeMs now) {
  std::vector<WithdrawnDispatch> withdrawn;
  const auto found = dispatches_.find(id);
  if (found == dispatches_.end()) return withdrawn;
  DispatchPart* part = found->second.part_on(cluster);
  if (part == nullptr || part->state == PartState::kEnded) return withdrawn;
  part->state = PartState::kEnded;  // nothing of it runs: its agent needs no Cancel
  PendingReason reason{PendingReason::Kind::kFenced};
  reason.cluster = cluster;
  withdraw(id, reason, now, withdrawn, LifecycleEvent::kPodEvicted);
  return withdrawn;
}

ResourceVector SchedulerCore::pool_capacity() const {
  ResourceVector total;
  for (const ClusterState& cluster : clusters_)
    if (cluster.ready()) total += cluster.total_allocatable();
  return total;
}

// ------------------------------------------------------------------ queues

QueueIndex SchedulerCore::apply_queue(const QueueSpec& spec) {
  if (!spec.placement.empty() && find_placement_policy(spec.placement) == nullptr)
    throw FieldError("metadata.annotations.gantry.io/placement", spec.placement,
                     "expected one of " + placement_policy_names());
  const QueueIndex index = queues_.apply(spec);
  refresh_queues();
  return index;
}

void SchedulerCore::delete_queue(std::string_view name) {
  queues_.remove(name);
}

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

void SchedulerCore::refresh_queues() {
  queues_.refresh(pool_capacity());
  refresh_queue_policies();
}

// Each queue's policy: its own gantry.io/placement, else its nearest
// ancestor's, else the hub's default. Queue trees are shallow: a walk up per
// queue, once per pass.
void SchedulerCore::refresh_queue_policies() {
  queue_policy_.assign(queues_.size(), &options_.placement);
  for (QueueIndex q = 0; q < queues_.size(); ++q) {
    for (QueueIndex up = q;; up = queues_.node(up).parent) {
      if (const PlacementPolicy* named = find_placement_policy(queues_.node(up).spec.placement)) {
        queue_policy_[q] = named;
        break;
      }
      if (up == kRootQueue) break;
    }
  }
}

const PlacementPolicy& SchedulerCore::policy_for(const Job& job) const {
  return job.queue < queue_policy_.size() ? *queue_policy_[job.queue] : options_.placement;
}

// ------------------------------------------------------------------ jobs

JobId SchedulerCore::submit(JobRequest request, TimeMs now) {
  if (request.name.empty() && !request.generate_name.empty())
    request.name = make_name(request.generate_name);
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
    throw FieldError("spec.queue", request.queue,
                     "the queue has child queues; submit to a leaf queue");
  if (!queues_.node(*queue).spec.open)
    throw FieldError("spec.queue", request.queue, "the queue is Closed and accepts no new jobs");
  const std::int64_t time_limit = resolve_time_limit(
      request.time_limit_ms, queues_.node(*queue).spec, request.time_limit_field);
  count_selected_gpu_products(request.gang);
  Job job;
  // Moves only the resolved part: the request's own fields are read below.
  static_cast<ResolvedJob&>(job) = std::move(request);
  job.queue = *queue;
  job.sequence = next_sequence_++;
  job.submitted_ms = now;
  job.set_request(job.gang.total(), job.gang.minimum());
  job.sla_waiting_ms = request.sla_waiting_ms >= 0 ? request.sla_waiting_ms
                                                   : queues_.node(*queue).spec.sla_waiting_ms;
  job.time_limit_ms = time_limit;
  for (const std::string& cluster : request.allowed_clusters)
    job.allowed_clusters.push_back(add_cluster(cluster));
  if (!request.cluster_selector.empty())
    job.notes().cluster_selector = std::move(request.cluster_selector);
  if (job.spec && job.spec->name != job.name) {  // a made name: agents run it under that name
    auto named = std::make_shared<protocol::JobSpec>(*job.spec);
    named->name = job.name;
    job.spec = std::move(named);
  }
  // A forgotten job's slot if there is one (the oldest freed), else a new one.
  const JobId id = free_ids_.empty() ? static_cast<JobId>(jobs_.size()) : free_ids_.front();
  job_by_name_.emplace(job.name, id);
  if (id < jobs_.size()) {
    free_ids_.pop_front();
    jobs_[id] = std::move(job);
  } else {
    jobs_.push_back(std::move(job));
  }
  enqueue(id);
  arm_pending_timeout(id, now);
  return id;
}

void SchedulerCore::enqueue(JobId id) {
  Job& job = jobs_[id];
  job.phase = JobPhase::kPending;
  const PendingKey key{-job.priority, job.sequence, id};
  queues_.enqueue(job.queue, key, job.total);
  job.shape_class = pending_shapes_.add(job);
  if (pass_.open) note_enqueued_in_pass(job, key);
  sla_watch_.add(job, id);
  ++pending_total_;
}

void SchedulerCore::dequeue(JobId id) {
  Job& job = jobs_[id];
  if (pass_.serving == id) {  // the queue stage holds its entry
    queues_.dequeue_at(job.queue, pass_.serving_at, job.total);
    pass_.serving.reset();
  } else if (!queues_.dequeue(job.queue, PendingKey{-job.priority, job.sequence, id}, job.total)) {
    return;
  }
  pending_shapes_.remove(job.queue, job.shape_class);
  job.shape_class = kIndividualShape;  // the class may be emptied and its id reused
  sla_watch_.remove(job, id);
  --pending_total_;
  disarm_pending_timeout(id);
}

// Turns a placement that fits (one part, or a split's parts) into a dispatch
// whose parts the agents will be asked to prepare.
void SchedulerCore::commit_dispatch(JobId id, std::span<const PartPlacement> parts) {
  const DispatchId dispatch_id = next_dispatch_++;
  Job& job = jobs_[id];
  ++job.epoch;
  Dispatch& dispatch = install_dispatch(id, dispatch_id, parts, true);
  plan_run_end(dispatch, pass_.now);
  for (const DispatchPart& part : dispatch.parts) pass_.pool_free -= part.held;
  job.phase = JobPhase::kDispatched;
  // The best candidates' scores, for describe: enough to see why, bounded so
  // a hub of many clusters copies little per dispatch.
  constexpr std::size_t kScoresKept = 16;
  const std::size_t kept = std::min(pass_.candidates.size(), kScoresKept);
  job.notes().last_scores.assign(pass_.candidates.begin(),
                                 pass_.candidates.begin() + static_cast<std::ptrdiff_t>(kept));
  decisions_.push_back(
      Decision{Decision::Kind::kDispatch, id, dispatch_id, dispatch.parts.front().cluster});
}

// Takes the pending job out of its queue and charges it to the queue, holding
// each part's assignment on its cluster's nodes under `dispatch_id`.
Dispatch& SchedulerCore::install_dispatch(JobId id, DispatchId dispatch_id,
                                          std::span<const PartPlacement> parts,
                                          bool awaiting_report) {
  Job& job = jobs_[id];
  dequeue(id);
  Dispatch dispatch;
  dispatch.id = dispatch_id;
  dispatch.job = id;
  dispatch.epoch = job.epoch;
  dispatch.parts.reserve(parts.size());
  const std::size_t tasks = job.gang.tasks.size();
  std::vector<std::int32_t> replicas_so_far(tasks, 0);
  for (const PartPlacement& placed : parts) {
    DispatchPart& part = dispatch.parts.emplace_back();
    part.cluster = placed.cluster;
    part.assignment.assign(placed.assignment.begin(), placed.assignment.end());
    part.awaiting_report = awaiting_report;
    part.task_replicas.assign(tasks, 0);
    part.task_index_offset = replicas_so_far;
    part.rank_offset = dispatch.world_size;
    for (const NodeAssignment& entry : part.assignment) {
      ++part.task_replicas[entry.task];
      part.held += entry.amount;
      part.amount += job.gang.tasks[entry.task].per_replica;
    }
    for (std::size_t t = 0; t < tasks; ++t) replicas_so_far[t] += part.task_replicas[t];
    dispatch.world_size += static_cast<std::int32_t>(part.assignment.size());
    dispatch.amount += part.amount;
  }
  const RunningKey running{job.priority, -static_cast<std::int64_t>(job.sequence), dispatch_id};
  queues_.add_running(job.queue, running, dispatch.amount);
  for (const DispatchPart& part : dispatch.parts) {
    // As QueueTree::add_running: most often first in eviction order.
    running_on_[part.cluster].insert(running_on_[part.cluster].begin(), running);
    if (is_elastic(job.gang)) elastic_on_[part.cluster].insert(running);
  }
  job.dispatch = dispatch_id;
  job.cluster = dispatch.parts.front().cluster;
  job.reason = PendingReason{PendingReason::Kind::kNone};
  job.tasks.clear();
  Dispatch& installed = dispatches_.emplace(dispatch_id, std::move(dispatch)).first->second;
  if (over_share(job.queue)) index_over_share(running, installed, true);
  sync_over_share(job.queue);
  note_parts(job, installed);
  note_elastic(installed);
  return installed;
}

// Where the job went, kept after the dispatch is gone (describe, get -o json).
void SchedulerCore::note_parts(Job& job, const Dispatch& dispatch) {
  std::vector<PartSummary>& summary = job.notes().parts;
  summary.clear();
  for (const DispatchPart& part : dispatch.parts)
    summary.push_back(PartSummary{part.cluster, part.task_replicas});
}

std::optional<DispatchId> SchedulerCore::cancel(std::string_view name, TimeMs now) {
  auto found = find_job(name);
  if (!found) throw std::out_of_range("job \"" + std::string(name) + "\" not found");
  Job& job = jobs_[*found];
  if (is_terminal(job.phase))
    throw std::invalid_argument("job \"" + job.name + "\" has already ended (" +
                                std::string(phase_name(job.phase)) + ")");
  std::optional<DispatchId> running;
  if (job.phase == JobPhase::kPending && job.dispatch == 0) {
    dequeue(*found);
    restart_waits_.erase({job.history().restart_at, *found});  // waiting out a restart backoff
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
// while a part awaits a report (an accounted part is freed by the agent's
// next report), and its share of its queue's allocation.
void SchedulerCore::release_dispatch(DispatchId dispatch_id) {
  auto it = dispatches_.find(dispatch_id);
  if (it == dispatches_.end()) return;
  Dispatch& dispatch = it->second;
  forget_planned_end(dispatch);
  drop_growth(dispatch);
  elastic_below_.erase(dispatch_id);
  const Job& job = jobs_[dispatch.job];
  const RunningKey running{job.priority, -static_cast<std::int64_t>(job.sequence), dispatch_id};
  for (const DispatchPart& part : dispatch.parts) {
    if (part.awaiting_report) {
      release(clusters_[part.cluster], part.assignment);
      if (clusters_[part.cluster].ready() && !clusters_[part.cluster].cordoned())
        pass_.pool_free += part.held;
    } else if (!part.left_report) {
      backfill_.note_ended_unreported(part.cluster, dispatch_id, part.assignment);
    }
    running_on_[part.cluster].erase(running);
    elastic_on_[part.cluster].erase(running);
  }
  if (over_share(job.queue)) index_over_share(running, dispatch, false);
  const QueueIndex queue = job.queue;
  queues_.remove_running(queue, running, dispatch.amount);
  dispatches_.erase(it);
  sync_over_share(queue);
}

void SchedulerCore::requeue(JobId id, PendingReason reason, TimeMs now) {
  Job& job = jobs_[id];
  job.dispatch = 0;
  job.started_ms = 0;
  job.reason = reason;
  job.edit_history().requeue_cause = reason;
  ++job.requeues;
  enqueue(id);
  arm_pending_timeout(id, now);
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

void SchedulerCore::score_clusters(const Job& job, TimeMs now,
                                   std::vector<ClusterRank>& out) const {
  policy_for(job).rank_clusters(clusters_, job, options_.topology_tiers, now, out);
}

ResourceVector SchedulerCore::allocated_on(ClusterIndex index) const {
  const ClusterState& cluster = clusters_[index];
  return cluster.total_allocatable() - cluster.total_free();
}

}  // namespace gantry::hub
