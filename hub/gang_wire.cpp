#include "hub/gang_wire.hpp"

#include <stdexcept>
#include <string>

#include "hub/field_error.hpp"
#include "hub/topology.hpp"

namespace gantry::hub {

namespace {

protocol::TopologyRule rule_to_wire(const TopologyConstraint& constraint) {
  switch (constraint.mode) {
    case TopologyConstraint::Mode::kHard:
      return {"hard", constraint.highest_tier};
    case TopologyConstraint::Mode::kSoft:
      return {"soft", constraint.highest_tier};
    case TopologyConstraint::Mode::kNone:
      break;
  }
  return {"", constraint.highest_tier};
}

TopologyConstraint rule_from_wire(const protocol::TopologyRule& rule, const std::string& field) {
  TopologyConstraint constraint;
  if (rule.mode == "hard") {
    constraint.mode = TopologyConstraint::Mode::kHard;
  } else if (rule.mode == "soft") {
    constraint.mode = TopologyConstraint::Mode::kSoft;
  } else if (!rule.mode.empty()) {
    throw FieldError(field + ".mode", rule.mode, "expected \"\", \"hard\" or \"soft\"");
  }
  if (rule.highest_tier < 1 || rule.highest_tier > kMaxTopologyTiers)
    throw FieldError(field + ".highest_tier", std::to_string(rule.highest_tier),
                     "must be from 1 to " + std::to_string(kMaxTopologyTiers));
  constraint.highest_tier = rule.highest_tier;
  return constraint;
}

protocol::ResolvedTask task_to_wire(const TaskShape& task) {
  return protocol::ResolvedTask{task.name,
                                task.replicas,
                                task.per_replica.to_list(),
                                task.node_selector,
                                task.tolerations,
                                task.partition_size,
                                task.min_partitions,
                                rule_to_wire(task.partition_topology)};
}

ResourceVector request_from_wire(const protocol::ResourceList& list, const std::string& field) {
  for (const auto& [name, milli] : list)
    if (milli < 0) throw FieldError(field + "[" + name + "]", std::to_string(milli), "is negative");
  try {
    return ResourceVector::from_list(list);
  } catch (const std::length_error& e) {
    throw FieldError(field, "", e.what());
  }
}

void check_partitions(const TaskShape& task, const std::string& field) {
  if (task.partition_size < 0 || task.partition_size > task.replicas)
    throw FieldError(field + ".partition_size", std::to_string(task.partition_size),
                     "must be from 0 to the task's " + std::to_string(task.replicas) + " replicas");
  const std::int32_t whole = task.partition_size > 0 ? task.replicas / task.partition_size : 0;
  if (task.min_partitions < 0 || task.min_partitions > whole)
    throw FieldError(field + ".min_partitions", std::to_string(task.min_partitions),
                     "must be from 0 to the task's " + std::to_string(whole) + " whole partitions");
}

TaskShape task_from_wire(const protocol::ResolvedTask& wire, const std::string& field) {
  if (wire.replicas < 1)
    throw FieldError(field + ".replicas", std::to_string(wire.replicas), "must be at least 1");
  TaskShape task{wire.name, wire.replicas,
                 request_from_wire(wire.per_replica, field + ".per_replica"), wire.node_selector,
                 wire.tolerations};
  task.partition_size = wire.partition_size;
  task.min_partitions = wire.min_partitions;
  task.partition_topology = rule_from_wire(wire.partition_topology, field + ".partition_topology");
  check_partitions(task, field);
  return task;
}

}  // namespace

protocol::ResolvedGang gang_to_wire(const GangShape& gang) {
  protocol::ResolvedGang wire;
  wire.tasks.reserve(gang.tasks.size());
  for (const TaskShape& task : gang.tasks) wire.tasks.push_back(task_to_wire(task));
  wire.min_available = gang.min_available;
  wire.topology = rule_to_wire(gang.topology);
  return wire;
}

GangShape gang_from_wire(const protocol::ResolvedGang& wire) {
  if (wire.tasks.empty()) throw FieldError("gang.tasks", "", "names no task");
  GangShape gang;
  gang.tasks.reserve(wire.tasks.size());
  std::int64_t replicas = 0;
  for (std::size_t t = 0; t < wire.tasks.size(); ++t) {
    gang.tasks.push_back(task_from_wire(wire.tasks[t], "gang.tasks[" + std::to_string(t) + "]"));
    replicas += gang.tasks.back().replicas;
  }
  if (wire.min_available < 1 || wire.min_available > replicas)
    throw FieldError("gang.min_available", std::to_string(wire.min_available),
                     "must be from 1 to the gang's " + std::to_string(replicas) + " replicas");
  gang.min_available = wire.min_available;
  gang.topology = rule_from_wire(wire.topology, "gang.topology");
  return gang;
}

}  // namespace gantry::hub
