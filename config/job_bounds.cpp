#include "config/job_bounds.hpp"

#include <map>

#include "config/input_limits.hpp"
#include "hub/field_error.hpp"

namespace gantry::config {

using hub::FieldError;

void check_task_count(std::size_t tasks, const std::string& field) {
  if (tasks > kMaxTasksPerJob)
    throw FieldError(
        field, "",
        std::to_string(tasks) + " tasks exceed the limit " + std::to_string(kMaxTasksPerJob));
}

void check_task_replicas(std::int32_t replicas, const std::string& field) {
  if (replicas > kMaxReplicasPerTask)
    throw FieldError(
        field, "",
        std::to_string(replicas) + " exceeds the limit " + std::to_string(kMaxReplicasPerTask));
}

void check_quantity(std::int64_t milli, const std::string& text, const std::string& field) {
  if (milli > kMaxQuantityMilli)
    throw FieldError(field, text,
                     "exceeds the limit of " + std::to_string(kMaxQuantityMilli / 1000) + " units");
}

void check_job_totals(const protocol::JobSpec& job) {
  std::int64_t replicas = 0;
  // 128 bits: every factor is bounded (quantities, replicas, tasks, and
  // containers by the document's size), so the sums cannot overflow here.
  std::map<std::string, unsigned __int128> totals;
  for (const protocol::TaskSpec& task : job.tasks) {
    replicas += task.replicas;
    for (const protocol::ContainerSpec& container : task.containers)
      for (const auto& [resource, milli] : container.requests)
        totals[resource] += static_cast<unsigned __int128>(milli < 0 ? 0 : milli) *
                            static_cast<unsigned __int128>(task.replicas);
  }
  if (replicas > kMaxReplicasPerJob)
    throw FieldError("spec.tasks", "",
                     std::to_string(replicas) + " replicas in all exceed the limit " +
                         std::to_string(kMaxReplicasPerJob));
  for (const auto& [resource, total] : totals)
    if (total > static_cast<unsigned __int128>(kMaxJobTotalMilli))
      throw FieldError("spec.tasks", "",
                       "the job's whole " + resource +
                           " request (each task's replicas times "
                           "its containers' requests) exceeds the limit of " +
                           std::to_string(kMaxJobTotalMilli / 1000) + " units");
}

}  // namespace gantry::config
