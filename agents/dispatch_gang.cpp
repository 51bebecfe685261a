#include "agents/dispatch_gang.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "hub/field_error.hpp"
#include "hub/job_request.hpp"

namespace gantry::agents {

namespace {

void refuse_unknown_tasks(const protocol::Dispatch& dispatch) {
  for (const auto& [name, replicas] : dispatch.task_replicas) {
    const bool known = std::any_of(dispatch.job.tasks.begin(), dispatch.job.tasks.end(),
                                   [&](const protocol::TaskSpec& t) { return t.name == name; });
    if (!known) {
      throw hub::FieldError("task_replicas[" + name + "]", std::to_string(replicas),
                            "names a task that job " + dispatch.job.name + " does not have");
    }
  }
}

}  // namespace

DispatchGang gang_for_dispatch(const protocol::Dispatch& dispatch) {
  refuse_unknown_tasks(dispatch);
  DispatchGang gang;
  std::int32_t total = 0;
  for (std::size_t t = 0; t < dispatch.job.tasks.size(); ++t) {
    const protocol::TaskSpec& task = dispatch.job.tasks[t];
    const auto here = dispatch.task_replicas.find(task.name);
    if (here == dispatch.task_replicas.end() || here->second == 0) continue;
    const std::string field = "task_replicas[" + task.name + "]";
    if (here->second < 0 || here->second > task.replicas) {
      throw hub::FieldError(
          field, std::to_string(here->second),
          "must be from 0 to the task's " + std::to_string(task.replicas) + " replicas");
    }
    hub::TaskShape shape;
    shape.name = task.name;
    shape.replicas = here->second;
    shape.per_replica = hub::replica_request(task, "job.tasks[" + std::to_string(t) + "]");
    shape.node_selector = task.node_selector;
    gang.shape.tasks.push_back(std::move(shape));
    gang.job_task.push_back(static_cast<std::uint32_t>(t));
    total += here->second;
  }
  if (total == 0) throw hub::FieldError("task_replicas", "", "gives this cluster no replicas");
  if (dispatch.job.min_available < 0) {
    throw hub::FieldError("job.min_available", std::to_string(dispatch.job.min_available),
                          "must not be negative");
  }
  gang.shape.min_available =
      dispatch.job.min_available == 0 ? total : std::min(dispatch.job.min_available, total);
  return gang;
}

}  // namespace gantry::agents
