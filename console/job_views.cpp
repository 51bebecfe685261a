#include "console/job_views.hpp"

#include <algorithm>

#include "console/duration.hpp"
#include "console/object_json.hpp"
#include "console/table.hpp"

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

std::string render_jobs_json(const std::vector<protocol::JobInfo>& jobs) {
  return json_array_text(jobs, job_json);
}

}  // namespace gantry::console
