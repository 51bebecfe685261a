#include "agents/task_dependencies.hpp"

#include <algorithm>

namespace gantry::agents {

TaskStartGate::TaskStartGate(const protocol::JobSpec& job, const std::vector<RunReplica>& replicas)
    : depends_on_(job.tasks.size()),
      any_(job.tasks.size(), false),
      placed_(job.tasks.size(), 0),
      running_(job.tasks.size(), 0) {
  for (std::size_t t = 0; t < job.tasks.size(); ++t) {
    const protocol::TaskDependency& dependency = job.tasks[t].depends_on;
    any_[t] = dependency.iteration == "any";
    for (const std::string& name : dependency.names) {
      const auto named =
          std::find_if(job.tasks.begin(), job.tasks.end(),
                       [&](const protocol::TaskSpec& task) { return task.name == name; });
      // Admission refuses unknown names; one that slipped through names nothing to wait for.
      if (named != job.tasks.end())
        depends_on_[t].push_back(static_cast<std::uint32_t>(named - job.tasks.begin()));
    }
  }
  for (const RunReplica& replica : replicas)
    if (replica.task < placed_.size()) ++placed_[replica.task];
}

bool TaskStartGate::may_start(std::uint32_t task) const {
  const std::vector<std::uint32_t>& named = depends_on_.at(task);
  if (named.empty()) return true;
  const auto runs = [this](std::uint32_t t) { return task_running(t); };
  return any_[task] ? std::any_of(named.begin(), named.end(), runs)
                    : std::all_of(named.begin(), named.end(), runs);
}

void TaskStartGate::running(std::uint32_t task) {
  ++running_.at(task);
}

bool TaskStartGate::task_running(std::uint32_t task) const {
  return running_[task] >= placed_[task];
}

}  // namespace gantry::agents
