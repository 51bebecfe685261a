#include "console/job_views.hpp"

#include <algorithm>

#include "console/duration.hpp"
#include "console/json_fields.hpp"
#include "console/table.hpp"
#include "hub/time_limit.hpp"

namespace gantry::console {

std::vector<std::string> placed_clusters(const protocol::JobInfo& job) {
  std::vector<std::string> clusters = job.clusters;
  for (const auto& part : job.parts) {
    if (std::find(clusters.begin(), clusters.end(), part.cluster) == clusters.end()) {
      clusters.push_back(part.cluster);
    }
  }
  return clusters;
}

std::string join_clusters(const std::vector<std::string>& clusters) {
  if (clusters.empty()) return "<none>";
  std::string text;
  for (const auto& cluster : clusters) text += (text.empty() ? "" : ",") + cluster;
  return text;
}

std::string render_jobs_table(const std::vector<protocol::JobInfo>& jobs, std::int64_t now_ms) {
  Table table({"NAME", "QUEUE", "PHASE", "CLUSTERS", "AGE", "REASON"});
  for (const auto& job : jobs) {
    const std::string age =
        job.submitted_ms == 0 ? "<unknown>" : format_age(now_ms - job.submitted_ms);
    table.add_row(
        {job.name, job.queue, job.phase, join_clusters(placed_clusters(job)), age, job.reason});
  }
  return table.render();
}

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

Json job_json(const protocol::JobInfo& job) {
  Json json;
  json["name"] = job.name;
  json["queue"] = job.queue;
  json["phase"] = job.phase;
  json["clusters"] = job.clusters;
  json["reason"] = job.reason;
  json["priority"] = job.priority;
  json["replicas"] = job.replicas;
  json["minAvailable"] = job.min_available;
  json["requeues"] = job.requeues;
  json["retries"] = job.retries;
  json["maxRetry"] = job.max_retry;
  json["lastEvent"] = job.last_event.empty()
                          ? Json()
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

}  // namespace

std::string render_jobs_json(const std::vector<protocol::JobInfo>& jobs) {
  return json_array_text(jobs, job_json);
}

}  // namespace gantry::console
