#include "console/placement_views.hpp"

#include <algorithm>

#include "console/table.hpp"

namespace gantry::console {

namespace {

bool spec_lists(const std::vector<protocol::TaskSpec>& tasks, const std::string& name) {
  return std::any_of(tasks.begin(), tasks.end(),
                     [&name](const protocol::TaskSpec& task) { return task.name == name; });
}

void append_entry(std::string& text, const std::string& entry) {
  if (!text.empty()) text += ", ";
  text += entry;
}

// "east: worker x4, master x1\nwest: worker x4", one line per part.
std::string format_parts(const std::vector<protocol::JobPart>& parts,
                         const std::vector<protocol::TaskSpec>& tasks) {
  std::string text;
  for (const auto& part : parts) {
    if (!text.empty()) text += '\n';
    const std::string replicas = format_part(part, tasks);
    text += part.cluster + ": " + (replicas.empty() ? "<none>" : replicas);
  }
  return text;
}

// `text` with `indent` in front of every line, to nest a fields block.
std::string indented(const std::string& text, const std::string& indent) {
  std::string out;
  bool line_start = true;
  for (const char c : text) {
    if (line_start) out += indent;
    out += c;
    line_start = c == '\n';
  }
  return out;
}

}  // namespace

std::string format_part(const protocol::JobPart& part,
                        const std::vector<protocol::TaskSpec>& tasks) {
  std::string text;
  const auto entry = [](const std::string& task, std::int32_t replicas) {
    return task + " x" + std::to_string(replicas);
  };
  for (const auto& task : tasks) {
    const auto it = part.task_replicas.find(task.name);
    if (it != part.task_replicas.end()) append_entry(text, entry(it->first, it->second));
  }
  for (const auto& [task, replicas] : part.task_replicas) {
    if (!spec_lists(tasks, task)) append_entry(text, entry(task, replicas));
  }
  return text;
}

std::string format_scores(const std::vector<protocol::ClusterScoreInfo>& scores) {
  std::string text;
  for (const auto& score : scores)
    append_entry(text, score.cluster + " " + std::to_string(score.score));
  return text;
}

std::string render_placement(const protocol::JobInfo& job, const protocol::JobSpec& spec) {
  std::vector<Field> fields{
      {"Policy", job.placement.empty() ? "<none>" : job.placement},
      {"Epoch", std::to_string(job.epoch)},
  };
  if (job.parts.size() > 1) {
    fields.emplace_back("Split", "across " + std::to_string(job.parts.size()) + " clusters");
  }
  if (!job.parts.empty()) fields.emplace_back("Parts", format_parts(job.parts, spec.tasks));
  if (!job.scores.empty()) fields.emplace_back("Scores", format_scores(job.scores));
  return "Placement:\n" + indented(render_fields(fields), "  ");
}

}  // namespace gantry::console
