#include "actors/core_views.hpp"

#include <map>
#include <string>

#include "hub/gang_wire.hpp"

namespace gantry::actors {

namespace {

// Replicas per task name, from counts indexed like the job's GangShape tasks.
std::map<std::string, std::int32_t> by_task_name(const hub::Job& job,
                                                 const std::vector<std::int32_t>& counts) {
  std::map<std::string, std::int32_t> named;
  for (std::size_t task = 0; task < counts.size() && task < job.gang.tasks.size(); ++task)
    named[job.gang.tasks[task].name] = counts[task];
  return named;
}

// Where its current (or last) dispatch placed it, part by part.
void add_parts(const hub::SchedulerCore& core, const hub::Job& job, protocol::JobInfo& info) {
  if (job.placement_notes) {
    for (const hub::PartSummary& part : job.placement_notes->parts) {
      const std::string& cluster = core.cluster(part.cluster).name();
      info.parts.push_back(protocol::JobPart{cluster, by_task_name(job, part.task_replicas)});
      info.clusters.push_back(cluster);
    }
  }
  // A job that ended while the hub was away has no placement, only its cluster.
  if (info.clusters.empty() && job.cluster != hub::kNoCluster)
    info.clusters.push_back(core.cluster(job.cluster).name());
}

// A pending job: how its policy scores the clusters now; otherwise the
// scores of the decision that placed it.
void add_scores(const hub::SchedulerCore& core, const hub::Job& job, hub::TimeMs now,
                PendingScores pending_scores, protocol::JobInfo& info) {
  std::vector<hub::ClusterRank> computed;
  const std::vector<hub::ClusterRank>* ranks = nullptr;
  if (job.phase == hub::JobPhase::kPending) {
    if (pending_scores == PendingScores::kOmitted) return;
    core.score_clusters(job, now, computed);
    ranks = &computed;
  } else if (job.placement_notes) {
    ranks = &job.placement_notes->last_scores;
  }
  if (ranks == nullptr) return;
  for (const hub::ClusterRank& rank : *ranks)
    info.scores.push_back(
        protocol::ClusterScoreInfo{core.cluster(rank.cluster).name(), rank.score});
}

// Node indices are only names of the report they were planned on: after a
// newer report the cluster is still right, the nodes may not be.
void add_planned_start(const hub::SchedulerCore& core, const hub::Job& job,
                       protocol::JobInfo& info) {
  const hub::PlannedStart* planned = core.planned_start(job);
  if (planned == nullptr || job.phase != hub::JobPhase::kPending) return;
  const hub::ClusterState& cluster = core.cluster(planned->cluster);
  info.planned_start_ms = planned->start;
  info.planned_cluster = cluster.name();
  if (cluster.report_generation() != planned->report_generation) return;
  for (hub::NodeIndex node : planned->nodes) info.planned_nodes.push_back(cluster.node(node).name);
}

// Restarts so far out of the job's maxRetry, its last lifecycle event and the action taken.
void add_lifecycle(const hub::Job& job, protocol::JobInfo& info) {
  const hub::RunHistory& history = job.history();
  info.retries = history.retries;
  info.max_retry = job.spec ? job.spec->max_retry : 0;
  info.last_event = std::string(hub::event_name(history.last_event));
  info.last_action = std::string(hub::action_name(history.last_action));
  if (job.spec && history.last_event_task >= 0 &&
      static_cast<std::size_t>(history.last_event_task) < job.spec->tasks.size())
    info.last_event_task = job.spec->tasks[static_cast<std::size_t>(history.last_event_task)].name;
  info.last_event_replica = history.last_event_replica;
  info.last_exit_code = history.last_exit_code;
}

}  // namespace

protocol::JobInfo job_info(const hub::SchedulerCore& core, hub::JobId id, hub::TimeMs now,
                           PendingScores pending_scores) {
  const hub::Job& job = core.job(id);
  protocol::JobInfo info;
  info.name = job.name;
  info.submitter = job.submitter;
  if (job.spec) info.labels = job.spec->labels;
  info.queue = core.queue_name(job.queue);
  info.phase = std::string(hub::phase_name(job.phase));
  add_parts(core, job, info);
  info.placement = core.policy_for(job).name();
  add_scores(core, job, now, pending_scores, info);
  info.epoch = job.epoch;
  info.reason = core.reason_text(job);
  // Committed but not running everywhere: Pending, as Volcano shows a job
  // until its minAvailable pods run, with the member's reason.
  if (job.phase == hub::JobPhase::kRunning) {
    if (const hub::Dispatch* dispatch = core.find_dispatch(job.dispatch)) {
      if (std::string waiting = core.waiting_text(*dispatch); !waiting.empty()) {
        info.phase = protocol::phase::kPending;
        info.reason = std::move(waiting);
      }
    }
  }
  info.priority = job.priority;
  info.min_available = job.gang.min_available;
  info.replicas = job.gang.total_replicas();
  info.requeues = job.requeues;
  info.requests = job.gang.total().to_list();
  info.submitted_ms = job.submitted_ms;
  info.started_ms = job.started_ms;
  info.finished_ms = job.finished_ms;
  info.tasks = job.tasks;
  info.time_limit_ms = job.time_limit_ms;
  add_planned_start(core, job, info);
  add_lifecycle(job, info);
  return info;
}

namespace {

// NVML's view of the cluster, over the GPUs of its last usage report (every
// GPU of every node that listed some): the mean utilisation over those GPUs,
// rounded to the nearest percent; used and total memory summed; a GPU is idle
// when utilization_percent == 0 and processes == 0 (allocated or not, it does
// no work). Computed when asked, from what the report stored: never per pass.
void add_gpu_usage(const std::vector<protocol::GpuUsage>& gpus, protocol::ClusterInfo& info) {
  std::int64_t utilization_sum = 0;
  for (const protocol::GpuUsage& gpu : gpus) {
    utilization_sum += gpu.utilization_percent;
    info.gpu_memory_used_bytes += gpu.memory_used_bytes;
    info.gpu_memory_total_bytes += gpu.memory_total_bytes;
    if (gpu.utilization_percent == 0 && gpu.processes == 0) ++info.idle_gpus;
  }
  const auto reporting = static_cast<std::int64_t>(gpus.size());
  info.gpus_reporting = static_cast<std::int32_t>(reporting);
  if (reporting > 0)
    info.gpu_utilization_percent =
        static_cast<std::int32_t>((utilization_sum + reporting / 2) / reporting);
}

}  // namespace

protocol::ClusterInfo cluster_info(const hub::SchedulerCore& core, hub::ClusterIndex index,
                                   hub::TimeMs last_seen_ms) {
  const hub::ClusterState& cluster = core.cluster(index);
  protocol::ClusterInfo info;
  info.name = cluster.name();
  info.ready = cluster.ready();
  info.not_ready_reason = cluster.agent_not_ready_reason();
  info.nodes = static_cast<std::int32_t>(cluster.node_count());
  info.labels = cluster.labels();
  info.capacity = cluster.total_allocatable().to_list();
  info.allocated = (cluster.total_allocatable() - cluster.total_free()).to_list();
  info.last_seen_ms = last_seen_ms;
  info.cordoned = cluster.cordoned();
  info.scores = cluster.observed_usage().scores;
  info.fit_note = cluster.observed_usage().fit_note;
  add_gpu_usage(cluster.observed_usage().gpus, info);
  return info;
}

namespace {

// The resources a queue file names, a declared 0 included.
protocol::ResourceList declared_list(const hub::ResourceBound& bound) {
  protocol::ResourceList list;
  for (std::size_t i = 0; i < hub::kMaxResources; ++i) {
    const auto id = static_cast<hub::ResourceId>(i);
    if (bound.has(id)) list[hub::ResourceNames::name(id)] = bound.value.get(id);
  }
  return list;
}

// Drops the components nothing bounds, so "no limit" shows as absent.
protocol::ResourceList bounded_list(const hub::ResourceVector& vector) {
  protocol::ResourceList list = vector.to_list();
  std::erase_if(list, [](const auto& entry) { return entry.second >= hub::kUnbounded; });
  return list;
}

}  // namespace

protocol::QueueInfo queue_info(const hub::SchedulerCore& core, hub::QueueIndex index) {
  const hub::QueueNode& queue = core.queues().node(index);
  protocol::QueueInfo info;
  info.name = queue.spec.name;
  info.parent = queue.spec.parent;
  info.weight = queue.spec.weight;
  info.priority = queue.spec.priority;
  // Volcano's Closing: asked to close while it still holds jobs.
  const bool empty = queue.pending_jobs.empty() && queue.running.empty();
  info.state = queue.spec.open ? "Open" : (empty ? "Closed" : "Closing");
  info.reclaimable = queue.spec.reclaimable;
  info.allocated = queue.allocated.to_list();
  info.deserved = bounded_list(queue.deserved);
  info.capability = bounded_list(queue.capability);
  info.guarantee = queue.guarantee.to_list();
  info.pending = queue.pending.to_list();
  info.share = queue.share;
  info.extend_clusters = queue.spec.extend_clusters;
  info.affinity = queue.spec.affinity;
  info.declared_deserved = declared_list(queue.spec.deserved);
  return info;
}

bool is_listed_queue(const hub::SchedulerCore& core, hub::QueueIndex index) {
  return index != hub::kRootQueue && !core.queues().node(index).deleted;
}

std::vector<QueueJobCounts> job_counts_by_queue(const hub::SchedulerCore& core) {
  std::vector<QueueJobCounts> counts(core.queue_count());
  for (hub::JobId id = 0; id < core.job_count(); ++id) {
    const hub::Job& job = core.job(id);
    if (job.forgotten || job.queue >= counts.size()) continue;
    QueueJobCounts& queue = counts[job.queue];
    switch (job.phase) {
      case hub::JobPhase::kPending:
        ++queue.pending;
        break;
      case hub::JobPhase::kDispatched:
        ++queue.dispatched;
        break;
      case hub::JobPhase::kRunning:
      case hub::JobPhase::kRestarting:  // still holds its parts while they stop
      case hub::JobPhase::kCompleting:
      case hub::JobPhase::kAborting:
      case hub::JobPhase::kTerminating:
        ++queue.running;
        break;
      default:  // ended: the store keeps it (gantryctl get jobs --phase, get usage)
        break;
    }
  }
  return counts;
}

std::string queue_job_counts(const hub::SchedulerCore& core, hub::QueueIndex index) {
  const QueueJobCounts counts = job_counts_by_queue(core).at(index);
  return std::to_string(counts.pending) + " pending, " + std::to_string(counts.dispatched) +
         " dispatched, " + std::to_string(counts.running) + " running";
}

protocol::Prepare prepare_message(const hub::SchedulerCore& core, const hub::Dispatch& dispatch,
                                  std::size_t index) {
  const hub::Job& job = core.job(dispatch.job);
  const hub::DispatchPart& part = dispatch.parts[index];
  protocol::Prepare prepare;
  prepare.dispatch_id = dispatch.id;
  prepare.part = static_cast<std::int32_t>(index);
  prepare.parts = static_cast<std::int32_t>(dispatch.parts.size());
  prepare.epoch = dispatch.epoch;
  if (job.spec) {
    prepare.job = *job.spec;
  } else {
    prepare.job.name = job.name;  // jobs submitted without a spec (sim, bench)
  }
  prepare.gang = hub::gang_to_wire(job.gang);
  prepare.task_replicas = by_task_name(job, part.task_replicas);
  const hub::ClusterState& cluster = core.cluster(part.cluster);
  prepare.nodes.reserve(part.assignment.size());
  for (const hub::NodeAssignment& entry : part.assignment) {
    if (entry.task >= job.gang.tasks.size() || entry.node >= cluster.node_count()) continue;
    prepare.nodes.push_back(
        protocol::PlacedReplica{job.gang.tasks[entry.task].name, cluster.node(entry.node).name});
  }
  prepare.rank_offset = part.rank_offset;
  prepare.world_size = dispatch.world_size;
  prepare.task_index_offsets = by_task_name(job, part.task_index_offset);
  prepare.time_limit_ms = job.time_limit_ms;
  prepare.member_queue = core.queues().node(job.queue).spec.member_queue;
  if (dispatch.parts.size() == 1 && job.gang.topology_aware())
    prepare.topology_tier_labels = core.topology_tiers().labels();
  return prepare;
}

protocol::Commit commit_message(const hub::SchedulerCore& core, const hub::Dispatch& dispatch,
                                std::size_t part) {
  return protocol::Commit{dispatch.id, core.job(dispatch.job).name, static_cast<std::int32_t>(part),
                          dispatch.rendezvous_host, dispatch.rendezvous_port};
}

}  // namespace gantry::actors
