// A released part's progress, read from the binding's status.aggregatedStatus[]
// (Karmada copies each member cluster's workload status there).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "protocol/messages.hpp"

namespace gantry::karmada {

struct PartProgress {
  bool reported = false;                    // an aggregatedStatus item for the cluster exists
  bool applied = false;                     // its applied: Karmada created the member workload
  std::string phase;                        // "" (not known yet) or a protocol::phase
  std::vector<protocol::TaskStatus> tasks;  // counts when the workload status has them
  std::string message;                      // appliedMessage, or why Failed
};

// The workload's kind comes from binding.spec.resource:
//  - Volcano Job (batch.volcano.sh/*): status.state.phase (Pending / Inqueue
//    -> "", Running / Restarting / Completing -> Running, Completed,
//    Failed / Aborting / Aborted / Terminating / Terminated -> Failed, with
//    state.reason and state.message), tasks from taskStatusCount (none when
//    it is absent: the job-wide totals name no task).
//  - batch/v1 Job: condition Complete / Failed "True", else active > 0 ->
//    Running; one task "main" (running = active, succeeded, failed).
//  - anything else: applied && health == "Healthy" -> Running.
// applied == false -> phase "" with appliedMessage (Karmada retries
// applying; the gateway decides how long to wait), unless the workload
// status already says Completed or Failed.
// A field of the wrong type throws hub::FieldError naming it.
PartProgress part_progress(const nlohmann::json& binding, const std::string& cluster);

}  // namespace gantry::karmada
