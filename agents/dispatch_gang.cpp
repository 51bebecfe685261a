#include "agents/dispatch_gang.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "hub/field_error.hpp"
#include "hub/gang_wire.hpp"

namespace gantry::agents {

namespace {

void refuse_unknown_tasks(const protocol::Prepare& prepare) {
  for (const auto& [name, replicas] : prepare.task_replicas) {
    const bool known = std::any_of(prepare.job.tasks.begin(), prepare.job.tasks.end(),
                                   [&](const protocol::TaskSpec& t) { return t.name == name; });
    if (!known) {
      throw hub::FieldError("task_replicas[" + name + "]", std::to_string(replicas),
                            "names a task that job " + prepare.job.name + " does not have");
    }
  }
}

void refuse_negative(const char* field, std::int64_t value) {
  if (value < 0) throw hub::FieldError(field, std::to_string(value), "must not be negative");
}

// A part of a split gang: the hub placed whole replicas there, and a gang
// with a hard topology is never split.
hub::TaskShape without_topology(hub::TaskShape task) {
  task.partition_size = 0;
  task.min_partitions = 0;
  task.partition_topology = {};
  return task;
}

// The tiers the Prepare names, checked: at most kMaxTopologyTiers, none empty.
std::optional<hub::TopologyTiers> tiers_of(const protocol::Prepare& prepare) {
  const std::vector<std::string>& labels = prepare.topology_tier_labels;
  if (labels.empty()) return std::nullopt;
  if (labels.size() > static_cast<std::size_t>(hub::kMaxTopologyTiers))
    throw hub::FieldError("topology_tier_labels", std::to_string(labels.size()) + " labels",
                          "names at most " + std::to_string(hub::kMaxTopologyTiers) + " tiers");
  hub::TopologyTiers tiers;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    try {
      tiers.set_label(static_cast<std::int32_t>(i + 1), labels[i]);
    } catch (const std::invalid_argument& e) {
      throw hub::FieldError("topology_tier_labels[" + std::to_string(i) + "]", labels[i], e.what());
    }
  }
  return tiers;
}

// The gang the hub resolved, task by task the job's own: the executors start
// JobSpec::tasks[t] for the gang's task t.
hub::GangShape resolved_gang(const protocol::Prepare& prepare) {
  const std::vector<protocol::ResolvedTask>& sent = prepare.gang.tasks;
  const std::vector<protocol::TaskSpec>& tasks = prepare.job.tasks;
  if (sent.size() != tasks.size())
    throw hub::FieldError(
        "gang.tasks", std::to_string(sent.size()) + " tasks",
        "must be job " + prepare.job.name + "'s " + std::to_string(tasks.size()) + " tasks");
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    if (sent[t].name != tasks[t].name)
      throw hub::FieldError("gang.tasks[" + std::to_string(t) + "].name", sent[t].name,
                            "must be the job's task " + std::to_string(t) + ", " + tasks[t].name);
  }
  return hub::gang_from_wire(prepare.gang);
}

}  // namespace

DispatchGang gang_for_part(const protocol::Prepare& prepare) {
  refuse_unknown_tasks(prepare);
  const hub::GangShape whole = resolved_gang(prepare);
  DispatchGang gang;
  const bool whole_gang = prepare.parts <= 1;
  if (whole_gang) gang.tiers = tiers_of(prepare);
  std::int32_t total = 0;
  for (std::size_t t = 0; t < whole.tasks.size(); ++t) {
    const hub::TaskShape& task = whole.tasks[t];
    const auto here = prepare.task_replicas.find(task.name);
    if (here == prepare.task_replicas.end() || here->second == 0) continue;
    if (here->second < 0 || here->second > task.replicas) {
      throw hub::FieldError(
          "task_replicas[" + task.name + "]", std::to_string(here->second),
          "must be from 0 to the task's " + std::to_string(task.replicas) + " replicas");
    }
    gang.shape.tasks.push_back(gang.tiers ? task : without_topology(task));
    gang.shape.tasks.back().replicas = here->second;
    gang.job_task.push_back(static_cast<std::uint32_t>(t));
    total += here->second;
  }
  if (total == 0) throw hub::FieldError("task_replicas", "", "gives this cluster no replicas");
  if (gang.tiers) gang.shape.topology = whole.topology;
  gang.shape.min_available = whole_gang ? std::min(whole.min_available, total) : total;
  return gang;
}

PartPlan part_plan(const protocol::Prepare& prepare) {
  if (prepare.parts < 1) {
    throw hub::FieldError("parts", std::to_string(prepare.parts), "must be at least 1");
  }
  if (prepare.part < 0 || prepare.part >= prepare.parts) {
    throw hub::FieldError(
        "part", std::to_string(prepare.part),
        "must be from 0 to parts - 1 (" + std::to_string(prepare.parts - 1) + ")");
  }
  refuse_negative("rank_offset", prepare.rank_offset);
  refuse_negative("world_size", prepare.world_size);
  std::int64_t here = 0;
  for (const auto& [task, replicas] : prepare.task_replicas) here += std::max(replicas, 0);
  if (prepare.world_size != 0 && prepare.rank_offset + here > prepare.world_size) {
    throw hub::FieldError("world_size", std::to_string(prepare.world_size),
                          "is less than rank_offset " + std::to_string(prepare.rank_offset) +
                              " plus the " + std::to_string(here) + " replicas of this part");
  }
  for (const auto& [task, offset] : prepare.task_index_offsets) {
    if (offset < 0) {
      throw hub::FieldError("task_index_offsets[" + task + "]", std::to_string(offset),
                            "must not be negative");
    }
  }
  refuse_negative("time_limit_ms", prepare.time_limit_ms);
  return PartPlan{prepare.part,        prepare.parts,      prepare.epoch,
                  prepare.rank_offset, prepare.world_size, prepare.time_limit_ms};
}

}  // namespace gantry::agents
