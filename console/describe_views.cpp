#include "console/describe_views.hpp"

#include <algorithm>
#include <set>
#include <vector>

#include "console/cluster_views.hpp"
#include "console/duration.hpp"
#include "console/job_views.hpp"
#include "console/json_fields.hpp"
#include "console/placement_views.hpp"
#include "console/queue_views.hpp"
#include "console/table.hpp"
#include "console/units.hpp"
#include "hub/duration.hpp"
#include "hub/quantity.hpp"

namespace gantry::console {

namespace {

std::string or_none(const std::string& text) {
  return text.empty() ? "<none>" : text;
}

// Volcano queue fields Gantry stores and shows but does not act on.
std::string not_acted_on(const std::vector<std::string>& items) {
  if (items.empty()) return "<none>";
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text + " (accepted, not acted on)";
}

std::string format_labels(const protocol::Labels& labels, std::string_view separator) {
  if (labels.empty()) return "<none>";
  std::string text;
  for (const auto& [key, value] : labels) {
    if (!text.empty()) text += separator;
    text += key + "=" + value;
  }
  return text;
}

// "2024-05-01T08:00:00.000Z (5m ago)", or "<none>" for a moment not reached yet.
std::string format_moment(std::int64_t unix_ms, std::int64_t now_ms) {
  if (unix_ms == 0) return "<none>";
  return format_timestamp(unix_ms) + " (" + format_age(now_ms - unix_ms) + " ago)";
}

// "2026-11-24T01:10:00Z (in 12m) on gpu-a: node-1, node-2"
std::string format_planned_start(const protocol::JobInfo& job, std::int64_t now_ms) {
  std::string text = format_timestamp(job.planned_start_ms);
  text += job.planned_start_ms > now_ms ? " (in " + format_age(job.planned_start_ms - now_ms) + ")"
                                        : " (due)";
  text += " on " + job.planned_cluster;
  for (std::size_t i = 0; i < job.planned_nodes.size(); ++i)
    text += (i == 0 ? ": " : ", ") + job.planned_nodes[i];
  return text;
}

const protocol::TaskStatus* find_status(const protocol::JobInfo& job, const std::string& task) {
  for (const auto& status : job.tasks) {
    if (status.name == task) return &status;
  }
  return nullptr;
}

std::string render_tasks(const protocol::DescribeReply& reply) {
  Table table({"NAME", "REPLICAS", "REQUESTS(per replica)", "PENDING", "RUNNING", "SUCCEEDED",
               "FAILED", "NODE-SELECTOR"});
  std::set<std::string> listed;
  const auto counts = [](const protocol::TaskStatus* s, std::int32_t protocol::TaskStatus::*f) {
    return s == nullptr ? std::string("0") : std::to_string(s->*f);
  };
  for (const auto& task : reply.spec.tasks) {
    const protocol::TaskStatus* status = find_status(reply.job, task.name);
    table.add_row(
        {task.name, std::to_string(task.replicas), format_resources(replica_requests(task)),
         counts(status, &protocol::TaskStatus::pending),
         counts(status, &protocol::TaskStatus::running),
         counts(status, &protocol::TaskStatus::succeeded),
         counts(status, &protocol::TaskStatus::failed), format_labels(task.node_selector, ",")});
    listed.insert(task.name);
  }
  // Status for a task the spec does not list (hub without spec) still shows.
  for (const auto& status : reply.job.tasks) {
    if (listed.contains(status.name)) continue;
    table.add_row({status.name, "?", "?", std::to_string(status.pending),
                   std::to_string(status.running), std::to_string(status.succeeded),
                   std::to_string(status.failed), "?"});
  }
  return table.empty() ? "  <none>\n" : table.render("  ");
}

std::string render_events(const std::vector<std::string>& events) {
  if (events.empty()) return "  <none>\n";
  std::string text;
  for (const auto& event : events) text += "  " + event + "\n";
  return text;
}

std::string render_resource_columns(
    const std::vector<std::pair<std::string, const protocol::ResourceList*>>& columns) {
  std::set<std::string> names;
  for (const auto& column : columns) {
    for (const auto& entry : *column.second) names.insert(entry.first);
  }
  if (names.empty()) return "  <none>\n";
  std::vector<std::string> headers{"RESOURCE"};
  for (const auto& column : columns) headers.push_back(column.first);
  Table table(headers);
  for (const auto& name : names) {
    std::vector<std::string> row{name};
    for (const auto& column : columns) {
      const auto it = column.second->find(name);
      row.push_back(it == column.second->end() ? "-" : format_quantity_readable(name, it->second));
    }
    table.add_row(std::move(row));
  }
  return table.render("  ");
}

}  // namespace

protocol::ResourceList replica_requests(const protocol::TaskSpec& task) {
  protocol::ResourceList total;
  for (const auto& container : task.containers) {
    for (const auto& [name, milli] : container.requests) total[name] += milli;
  }
  return total;
}

std::string format_last_event(const protocol::JobInfo& job) {
  if (job.last_event.empty()) return "<none>";
  std::string text = job.last_event;
  if (job.last_event_task.empty()) return text;
  text += " (task " + job.last_event_task;
  if (job.last_event_replica >= 0) text += ", replica " + std::to_string(job.last_event_replica);
  if (job.last_event == protocol::policy_event::kPodFailed)
    text += ", exit code " + std::to_string(job.last_exit_code);
  return text + ")";
}

std::string render_job_description(const protocol::DescribeReply& reply, std::int64_t now_ms) {
  const protocol::JobInfo& job = reply.job;
  const protocol::JobSpec& spec = reply.spec;
  std::vector<Field> fields{
      {"Name", job.name},
      {"Queue", job.queue},
      {"Phase", job.phase},
      {"Clusters", join_clusters(placed_clusters(job))},
      {"Reason", or_none(job.reason)},
      {"Priority Class", or_none(spec.priority_class)},
      {"Priority", std::to_string(job.priority)},
      {"Replicas", std::to_string(job.replicas)},
      {"Min Available", std::to_string(job.min_available)},
      {"Max Retry", std::to_string(spec.max_retry)},
      {"Requeues", std::to_string(job.requeues)},
      {"Retries", std::to_string(job.retries) + "/" + std::to_string(spec.max_retry)},
      {"Last Event", format_last_event(job)},
      {"Last Action", job.last_event.empty()    ? "<none>"
                      : job.last_action.empty() ? "none (default behaviour)"
                                                : job.last_action},
      {"Requests", format_resources(job.requests, ", ")},
      {"Submitted", format_moment(job.submitted_ms, now_ms)},
      {"Submitted By", or_none(job.submitter)},
      {"Started", format_moment(job.started_ms, now_ms)},
      {"Finished", format_moment(job.finished_ms, now_ms)},
      {"Time Limit", job.time_limit_ms > 0 ? hub::format_duration(job.time_limit_ms) : "none"},
      {"Annotations", format_labels(spec.annotations, "\n")},
  };
  if (job.planned_start_ms > 0) {  // a reserved job: when it will start, after "Started"
    auto started = std::find_if(fields.begin(), fields.end(),
                                [](const Field& field) { return field.first == "Started"; });
    fields.insert(std::next(started), {"Planned Start", format_planned_start(job, now_ms)});
  }
  std::string text = render_fields(fields);
  text += render_placement(job, spec);
  text += "Tasks:\n" + render_tasks(reply);
  text += "Events:\n" + render_events(reply.events);
  return text;
}

std::string render_queue_description(const protocol::QueueInfo& queue) {
  std::string text = render_fields({
      {"Name", queue.name},
      {"Parent", or_none(queue.parent)},
      {"State", queue.state},
      {"Weight", std::to_string(queue.weight)},
      {"Priority", std::to_string(queue.priority)},
      {"Reclaimable", queue.reclaimable ? "true" : "false"},
      {"Share", format_share(queue.share)},
      {"Extend Clusters", not_acted_on(queue.extend_clusters)},
      {"Affinity", queue.affinity.empty() ? "<none>" : not_acted_on({queue.affinity})},
  });
  text += "Resources:\n" + render_resource_columns({{"ALLOCATED", &queue.allocated},
                                                    {"PENDING", &queue.pending},
                                                    {"DESERVED", &queue.declared_deserved},
                                                    {"FAIR SHARE", &queue.deserved},
                                                    {"GUARANTEE", &queue.guarantee},
                                                    {"CAPABILITY", &queue.capability}});
  return text;
}

std::string render_cluster_description(const protocol::ClusterInfo& cluster, std::int64_t now_ms) {
  std::vector<Field> fields{
      {"Name", cluster.name},
      {"Ready", cluster.ready ? "True" : "False"},
      {"Cordoned", cluster.cordoned ? "True" : "False"},
      {"Nodes", std::to_string(cluster.nodes)},
      {"Last Seen", format_moment(cluster.last_seen_ms, now_ms)},
      {"Labels", format_labels(cluster.labels, "\n")},
  };
  // Said only when the nodes are a summary: agents' clusters read as before.
  if (!cluster.fit_note.empty()) fields.insert(fields.begin() + 4, {"Node Fit", cluster.fit_note});
  std::string text = render_fields(fields);
  text += "Resources:\n" + render_resource_columns({{"ALLOCATED", &cluster.allocated},
                                                    {"CAPACITY", &cluster.capacity}});
  text += render_cluster_gpu_section(cluster);
  text += render_cluster_ocm_section(cluster);
  return text;
}

}  // namespace gantry::console
