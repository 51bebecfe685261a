#include "actors/core_views.hpp"

#include <string>

namespace gantry::actors {

protocol::JobInfo job_info(const hub::SchedulerCore& core, hub::JobId id) {
  const hub::Job& job = core.job(id);
  protocol::JobInfo info;
  info.name = job.name;
  info.queue = core.queue_name(job.queue);
  info.phase = std::string(hub::phase_name(job.phase));
  if (job.cluster != hub::kNoCluster) info.clusters.push_back(core.cluster(job.cluster).name());
  info.reason = core.reason_text(job);
  info.priority = job.priority;
  info.min_available = job.gang.min_available;
  info.replicas = job.gang.total_replicas();
  info.requeues = job.requeues;
  info.requests = job.gang.total().to_list();
  info.submitted_ms = job.submitted_ms;
  info.started_ms = job.started_ms;
  info.finished_ms = job.finished_ms;
  info.tasks = job.tasks;
  return info;
}

protocol::ClusterInfo cluster_info(const hub::SchedulerCore& core, hub::ClusterIndex index,
                                   hub::TimeMs last_seen_ms) {
  const hub::ClusterState& cluster = core.cluster(index);
  protocol::ClusterInfo info;
  info.name = cluster.name();
  info.ready = cluster.ready();
  info.nodes = static_cast<std::int32_t>(cluster.node_count());
  info.labels = cluster.labels();
  info.capacity = cluster.total_allocatable().to_list();
  info.allocated = (cluster.total_allocatable() - cluster.total_free()).to_list();
  info.last_seen_ms = last_seen_ms;
  return info;
}

namespace {

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
  info.state = queue.spec.open ? "Open" : "Closed";
  info.reclaimable = queue.spec.reclaimable;
  info.allocated = queue.allocated.to_list();
  info.deserved = bounded_list(queue.deserved);
  info.capability = bounded_list(queue.capability);
  info.guarantee = queue.guarantee.to_list();
  info.pending = queue.pending.to_list();
  info.share = queue.share;
  return info;
}

bool is_listed_queue(const hub::SchedulerCore& core, hub::QueueIndex index) {
  return index != hub::kRootQueue && !core.queues().node(index).deleted;
}

std::string queue_job_counts(const hub::SchedulerCore& core, hub::QueueIndex index) {
  int pending = 0, dispatched = 0, running = 0, finished = 0;
  for (hub::JobId id = 0; id < core.job_count(); ++id) {
    const hub::Job& job = core.job(id);
    if (job.queue != index) continue;
    switch (job.phase) {
      case hub::JobPhase::kPending:
        ++pending;
        break;
      case hub::JobPhase::kDispatched:
        ++dispatched;
        break;
      case hub::JobPhase::kRunning:
        ++running;
        break;
      default:
        ++finished;
        break;
    }
  }
  return std::to_string(pending) + " pending, " + std::to_string(dispatched) + " dispatched, " +
         std::to_string(running) + " running, " + std::to_string(finished) + " finished";
}

protocol::Dispatch wire_dispatch(const hub::SchedulerCore& core, const hub::Decision& decision) {
  const hub::Job& job = core.job(decision.job);
  protocol::Dispatch dispatch;
  dispatch.dispatch_id = decision.dispatch;
  if (job.spec) {
    dispatch.job = *job.spec;
  } else {
    dispatch.job.name = job.name;  // jobs submitted without a spec (sim, bench)
  }
  const hub::Dispatch* placed = core.find_dispatch(decision.dispatch);
  if (placed == nullptr) return dispatch;
  for (std::size_t task = 0; task < placed->task_replicas.size() && task < job.gang.tasks.size();
       ++task) {
    dispatch.task_replicas[job.gang.tasks[task].name] = placed->task_replicas[task];
  }
  return dispatch;
}

}  // namespace gantry::actors
