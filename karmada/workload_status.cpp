#include "karmada/workload_status.hpp"

#include "config/bounded_json.hpp"
#include "hub/field_error.hpp"
#include "karmada/json_fields.hpp"

namespace gantry::karmada {

using nlohmann::json;
namespace phase = protocol::phase;

namespace {

constexpr const char* kItems = "status.aggregatedStatus";

struct VolcanoPhase {
  const char* volcano;
  const char* gantry;  // "" = not started yet
};

// Every Volcano JobPhase. Restarting / Completing still hold the gang on the
// member cluster, so they count as Running; Aborting / Aborted and
// Terminating / Terminated end it there without Gantry asking (Gantry
// cancels by suspending the binding), so they are failures of the part.
constexpr VolcanoPhase kVolcanoPhases[] = {
    {"Pending", ""},
    {"Inqueue", ""},
    {"Running", phase::kRunning},
    {"Restarting", phase::kRunning},
    {"Completing", phase::kRunning},
    {"Completed", phase::kCompleted},
    {"Failed", phase::kFailed},
    {"Aborting", phase::kFailed},
    {"Aborted", phase::kFailed},
    {"Terminating", phase::kFailed},
    {"Terminated", phase::kFailed},
};

const json* item_for(const json& binding, const std::string& cluster, std::string& path) {
  const json* items = optional_array_at(binding, kItems);
  if (items == nullptr) return nullptr;
  for (std::size_t i = 0; i < items->size(); ++i) {
    path = std::string(kItems) + "[" + std::to_string(i) + "]";
    if (optional_string_at((*items)[i], "clusterName", path) == cluster) return &(*items)[i];
  }
  return nullptr;
}

std::int32_t count_at(const json& root, std::string_view key, const std::string& base) {
  return optional_int32_at(root, key, base).value_or(0);
}

// status.taskStatusCount: {task: {phase: {Pending: n, Running: n, ...}}}.
// Karmada's Lua reflection may turn an empty map into [], read as no tasks.
std::vector<protocol::TaskStatus> volcano_tasks(const json& status, const std::string& base) {
  std::vector<protocol::TaskStatus> tasks;
  const json* counts = find_at(status, "taskStatusCount", base);
  if (counts == nullptr || (counts->is_array() && counts->empty())) return tasks;
  counts = optional_object_at(status, "taskStatusCount", base);
  const std::string path = base + ".taskStatusCount";
  for (const auto& [name, state] : counts->items()) {
    // Task names may hold dots: the path is for messages, never looked up.
    const std::string task_path = path + "." + name;
    if (!state.is_object())
      throw hub::FieldError(task_path, config::json_excerpt(state), "must be an object");
    protocol::TaskStatus task;
    task.name = name;
    if (const json* phases = optional_object_at(state, "phase", task_path)) {
      const std::string phase_path = task_path + ".phase";
      task.pending = count_at(*phases, "Pending", phase_path);
      task.running = count_at(*phases, "Running", phase_path);
      task.succeeded = count_at(*phases, "Succeeded", phase_path);
      task.failed = count_at(*phases, "Failed", phase_path);
    }
    tasks.push_back(std::move(task));
  }
  return tasks;
}

std::string volcano_reason(const json& status, const std::string& base,
                           const std::string& phase_name) {
  std::string message = "Volcano job " + phase_name;
  for (const char* key : {"state.reason", "state.message"}) {
    const auto text = optional_string_at(status, key, base);
    if (text && !text->empty()) message += ": " + *text;
  }
  return message;
}

void read_volcano(const json& status, const std::string& base, PartProgress& progress) {
  progress.tasks = volcano_tasks(status, base);
  const std::string name = optional_string_at(status, "state.phase", base).value_or("");
  for (const VolcanoPhase& known : kVolcanoPhases) {
    if (name != known.volcano) continue;
    progress.phase = known.gantry;
    if (progress.phase == phase::kFailed) progress.message = volcano_reason(status, base, name);
    return;
  }
}

bool condition_true(const json& status, const std::string& base, const char* type,
                    std::string& message) {
  const json* conditions = optional_array_at(status, "conditions", base);
  if (conditions == nullptr) return false;
  for (std::size_t i = 0; i < conditions->size(); ++i) {
    const std::string path = base + ".conditions[" + std::to_string(i) + "]";
    const json& condition = (*conditions)[i];
    if (optional_string_at(condition, "type", path) != type ||
        optional_string_at(condition, "status", path) != "True")
      continue;
    message = optional_string_at(condition, "message", path)
                  .value_or(optional_string_at(condition, "reason", path).value_or(""));
    return true;
  }
  return false;
}

// batch/v1 Job: Gantry maps it to one task "main" (binding_job.hpp).
void read_batch_job(const json& status, const std::string& base, PartProgress& progress) {
  protocol::TaskStatus task;
  task.name = "main";
  task.running = count_at(status, "active", base);
  task.succeeded = count_at(status, "succeeded", base);
  task.failed = count_at(status, "failed", base);
  progress.tasks = {task};
  std::string message;
  if (condition_true(status, base, "Complete", message)) {
    progress.phase = phase::kCompleted;
  } else if (condition_true(status, base, "Failed", message)) {
    progress.phase = phase::kFailed;
    progress.message = "Job failed" + (message.empty() ? "" : ": " + message);
  } else if (task.running > 0) {
    progress.phase = phase::kRunning;
  }
}

enum class WorkloadKind { kVolcanoJob, kBatchJob, kOther };

// The binding's own reference says what the status is, not its shape.
WorkloadKind workload_kind(const json& binding) {
  const std::string api_version =
      optional_string_at(binding, "spec.resource.apiVersion").value_or("");
  const std::string kind = optional_string_at(binding, "spec.resource.kind").value_or("");
  if (kind != "Job") return WorkloadKind::kOther;
  if (api_version.starts_with("batch.volcano.sh/")) return WorkloadKind::kVolcanoJob;
  if (api_version == "batch/v1") return WorkloadKind::kBatchJob;
  return WorkloadKind::kOther;
}

bool is_terminal(const std::string& name) {
  return name == phase::kCompleted || name == phase::kFailed;
}

}  // namespace

PartProgress part_progress(const json& binding, const std::string& cluster) {
  PartProgress progress;
  std::string path;
  const json* item = item_for(binding, cluster, path);
  if (item == nullptr) return progress;
  progress.reported = true;
  const bool applied = optional_bool_at(*item, "applied", path).value_or(false);
  progress.applied = applied;
  const std::string applied_message =
      optional_string_at(*item, "appliedMessage", path).value_or("");
  const std::string health = optional_string_at(*item, "health", path).value_or("");
  const std::string status_path = path + ".status";
  const WorkloadKind kind = workload_kind(binding);
  if (const json* status = optional_object_at(*item, "status", path)) {
    if (kind == WorkloadKind::kVolcanoJob) read_volcano(*status, status_path, progress);
    if (kind == WorkloadKind::kBatchJob) read_batch_job(*status, status_path, progress);
  }
  // A failed apply is retried by Karmada, so it is not an end; but a workload
  // that already ended keeps its end even if a later re-apply fails.
  if (!applied && !is_terminal(progress.phase)) {
    progress.phase.clear();
    progress.message = applied_message;
    return progress;
  }
  // Karmada calls a pending Volcano Job healthy: health only speaks for
  // workloads whose status Gantry cannot read (Deployment, ...).
  if (kind == WorkloadKind::kOther && health == "Healthy") progress.phase = phase::kRunning;
  if (progress.message.empty()) progress.message = applied_message;
  return progress;
}

}  // namespace gantry::karmada
