#include "console/job_views.hpp"

#include "console/duration.hpp"
#include "console/json_fields.hpp"
#include "console/json_writer.hpp"
#include "console/table.hpp"

namespace gantry::console {

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
    table.add_row({job.name, job.queue, job.phase, join_clusters(job.clusters), age, job.reason});
  }
  return table.render();
}

namespace {

void write_task_statuses(JsonWriter& json, const std::vector<protocol::TaskStatus>& tasks) {
  json.begin_array();
  for (const auto& task : tasks) {
    json.begin_object();
    json.key("name").string(task.name);
    json.key("pending").number(std::int64_t{task.pending});
    json.key("running").number(std::int64_t{task.running});
    json.key("succeeded").number(std::int64_t{task.succeeded});
    json.key("failed").number(std::int64_t{task.failed});
    json.end_object();
  }
  json.end_array();
}

void write_job(JsonWriter& json, const protocol::JobInfo& job) {
  json.begin_object();
  json.key("name").string(job.name);
  json.key("queue").string(job.queue);
  json.key("phase").string(job.phase);
  json.key("clusters");
  write_strings(json, job.clusters);
  json.key("reason").string(job.reason);
  json.key("priority").number(std::int64_t{job.priority});
  json.key("replicas").number(std::int64_t{job.replicas});
  json.key("minAvailable").number(std::int64_t{job.min_available});
  json.key("requeues").number(std::int64_t{job.requeues});
  json.key("requests");
  write_resources(json, job.requests);
  json.key("submitted");
  write_timestamp(json, job.submitted_ms);
  json.key("started");
  write_timestamp(json, job.started_ms);
  json.key("finished");
  write_timestamp(json, job.finished_ms);
  json.key("tasks");
  write_task_statuses(json, job.tasks);
  json.end_object();
}

}  // namespace

std::string render_jobs_json(const std::vector<protocol::JobInfo>& jobs) {
  JsonWriter json;
  json.begin_array();
  for (const auto& job : jobs) write_job(json, job);
  json.end_array();
  return json.str() + "\n";
}

}  // namespace gantry::console
