// How big a job may be (config/input_limits.hpp): tasks, replicas per task and
// in all, one quantity, and the job's whole request for each resource. Checked
// while a Volcano Job is parsed, so that the scheduler's int32 replica counts
// and int64 milli-unit sums (hub::GangShape::total) cannot overflow. Each
// throws hub::FieldError naming the field and the limit, e.g.
// "spec.tasks[3].replicas: 2000000 exceeds the limit 100000".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "protocol/messages.hpp"

namespace gantry::config {

void check_task_count(std::size_t tasks, const std::string& field);
void check_task_replicas(std::int32_t replicas, const std::string& field);
// `milli` as parsed from `text`.
void check_quantity(std::int64_t milli, const std::string& text, const std::string& field);
// The sum of the tasks' replicas, and per resource the sum over tasks of the
// containers' requests times the task's replicas.
void check_job_totals(const protocol::JobSpec& job);

}  // namespace gantry::config
