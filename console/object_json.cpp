#include "console/object_json.hpp"

#include "hub/duration.hpp"

namespace gantry::console {

namespace {

Json task_statuses_json(const std::vector<protocol::TaskStatus>& tasks) {
  Json json = Json::array();
  for (const auto& task : tasks) {
    json.push_back({{"name", task.name},
                    {"pending", task.pending},
                    {"running", task.running},
                    {"succeeded", task.succeeded},
                    {"failed", task.failed}});
  }
  return json;
}

Json parts_json(const std::vector<protocol::JobPart>& parts) {
  Json json = Json::array();
  for (const auto& part : parts) {
    json.push_back({{"cluster", part.cluster}, {"replicas", part.task_replicas}});
  }
  return json;
}

Json scores_json(const std::vector<protocol::ClusterScoreInfo>& scores) {
  Json json = Json::array();
  for (const auto& score : scores) {
    json.push_back({{"cluster", score.cluster}, {"score", score.score}});
  }
  return json;
}

}  // namespace

Json job_json(const protocol::JobInfo& job) {
  Json json;
  json["name"] = job.name;
  json["queue"] = job.queue;
  if (!job.labels.empty()) json["labels"] = Json(job.labels);  // as kubectl omits none
  json["phase"] = job.phase;
  json["clusters"] = job.clusters;
  json["reason"] = job.reason;
  json["priority"] = job.priority;
  json["replicas"] = job.replicas;
  json["minAvailable"] = job.min_available;
  json["requeues"] = job.requeues;
  json["retries"] = job.retries;
  json["maxRetry"] = job.max_retry;
  json["lastEvent"] = job.last_event.empty() ? Json()
                                             : Json{{"event", job.last_event},
                                                    {"task", job.last_event_task},
                                                    {"replica", job.last_event_replica},
                                                    {"exitCode", job.last_exit_code}};
  json["lastAction"] = job.last_action;
  json["requests"] = resources_json(job.requests);
  json["submitted"] = timestamp_json(job.submitted_ms);
  json["started"] = timestamp_json(job.started_ms);
  json["finished"] = timestamp_json(job.finished_ms);
  json["timeLimit"] =
      job.time_limit_ms > 0 ? Json(hub::format_duration(job.time_limit_ms)) : Json();
  json["tasks"] = task_statuses_json(job.tasks);
  json["parts"] = parts_json(job.parts);
  json["placement"] = job.placement;
  json["scores"] = scores_json(job.scores);
  json["epoch"] = job.epoch;
  if (job.planned_start_ms > 0) {
    json["plannedStart"] = timestamp_json(job.planned_start_ms);
    json["plannedCluster"] = job.planned_cluster;
    json["plannedNodes"] = job.planned_nodes;
  }
  return json;
}

Json cluster_json(const protocol::ClusterInfo& cluster) {
  const bool gpus_report = cluster.gpus_reporting > 0;
  return {{"name", cluster.name},
          {"ready", cluster.ready},
          {"cordoned", cluster.cordoned},
          {"notReadyReason", cluster.not_ready_reason},
          {"fitNote", cluster.fit_note},
          {"nodes", cluster.nodes},
          {"capacity", resources_json(cluster.capacity)},
          {"allocated", resources_json(cluster.allocated)},
          {"labels", cluster.labels},
          {"lastSeen", timestamp_json(cluster.last_seen_ms)},
          // A mean over no GPU is unknown (null); the sums over none are 0.
          {"gpuUtilization", gpus_report ? Json(cluster.gpu_utilization_percent) : Json(nullptr)},
          {"gpuMemoryUsed", cluster.gpu_memory_used_bytes},
          {"gpuMemoryTotal", cluster.gpu_memory_total_bytes},
          {"idleGpus", cluster.idle_gpus},
          {"gpusReporting", cluster.gpus_reporting},
          {"ocmScores", ocm_scores_json(cluster.scores)}};
}

Json queue_json(const protocol::QueueInfo& queue) {
  Json json = {{"name", queue.name},     {"parent", queue.parent},
               {"weight", queue.weight}, {"priority", queue.priority},
               {"state", queue.state},   {"reclaimable", queue.reclaimable}};
  for (const auto& [key, resources] :
       {std::pair{"allocated", &queue.allocated}, std::pair{"deserved", &queue.deserved},
        std::pair{"capability", &queue.capability}, std::pair{"guarantee", &queue.guarantee},
        std::pair{"pending", &queue.pending}}) {
    json[key] = resources_json(*resources);
  }
  json["declaredDeserved"] = resources_json(queue.declared_deserved);
  json["share"] = queue.share;
  json["extendClusters"] = queue.extend_clusters;
  json["affinity"] = queue.affinity;
  return json;
}

}  // namespace gantry::console
