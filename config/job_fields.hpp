// Readers for the Volcano Job fields beyond the gang shape: plugins, task
// dependencies, network topology and partition policies. Each throws
// hub::FieldError naming the field and value as Volcano's webhook would
// refuse it.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <vector>

#include "protocol/messages.hpp"

namespace gantry::config {

// spec.plugins: {name: [args]}; a plugin Volcano does not have is refused.
std::map<std::string, std::vector<std::string>> read_plugins(const YAML::Node& node,
                                                             const std::string& field);

// spec.networkTopology / partitionPolicy.networkTopology.
protocol::NetworkTopology read_network_topology(const YAML::Node& node, const std::string& field);

// spec.tasks[].partitionPolicy; `replicas` are the task's.
protocol::PartitionPolicy read_partition_policy(const YAML::Node& node, const std::string& field,
                                                std::int32_t replicas);

// spec.tasks[].dependsOn: {name: [tasks], iteration: any|all}.
protocol::TaskDependency read_task_dependency(const YAML::Node& node, const std::string& field);

// Every dependsOn names a task of the job other than itself, and the
// dependencies form no cycle (Volcano: "a directed acyclic graph").
void check_task_dependencies(const std::vector<protocol::TaskSpec>& tasks);

}  // namespace gantry::config
