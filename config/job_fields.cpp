#include "config/job_fields.hpp"

#include <set>

#include "config/yaml_fields.hpp"
#include "hub/field_error.hpp"

namespace gantry::config {

using hub::FieldError;

namespace {

// The job plugins Volcano's controller has.
const std::set<std::string> kPlugins{"env", "svc", "ssh", "pytorch", "tensorflow", "mpi", "ray"};

std::string task_field(std::size_t index) { return "spec.tasks[" + std::to_string(index) + "]"; }

// Depth-first search over dependsOn edges; `state`: 0 unseen, 1 on the path, 2 done.
bool reaches_cycle(std::size_t task, const std::vector<std::vector<std::size_t>>& edges,
                   std::vector<int>& state) {
  if (state[task] == 1) return true;
  if (state[task] == 2) return false;
  state[task] = 1;
  for (std::size_t next : edges[task])
    if (reaches_cycle(next, edges, state)) return true;
  state[task] = 2;
  return false;
}

}  // namespace

std::map<std::string, std::vector<std::string>> read_plugins(const YAML::Node& node,
                                                             const std::string& field) {
  std::map<std::string, std::vector<std::string>> plugins;
  if (!node || node.IsNull()) return plugins;
  require_map(node, field);
  for (const auto& entry : node) {
    const std::string name = entry.first.as<std::string>();
    const std::string item = field + "." + name;
    if (!kPlugins.count(name))
      throw FieldError(item, name,
                       "unknown job plugin; one of env, mpi, pytorch, ray, ssh, svc, tensorflow");
    plugins[name] = string_list(entry.second, item);
  }
  return plugins;
}

protocol::NetworkTopology read_network_topology(const YAML::Node& node, const std::string& field) {
  protocol::NetworkTopology topology;
  if (!node || node.IsNull()) return topology;
  require_map(node, field);
  reject_unknown(node, {"mode", "highestTierAllowed", "highestTierName"}, field);
  topology.mode = optional_string(node, "mode", field);
  if (topology.mode.empty()) topology.mode = "hard";  // Volcano's default
  if (topology.mode != "hard" && topology.mode != "soft")
    throw FieldError(field + ".mode", topology.mode, "must be hard or soft");
  topology.highest_tier_allowed = optional_int(node, "highestTierAllowed", field, 0);
  if (topology.highest_tier_allowed < 0)
    throw FieldError(field + ".highestTierAllowed", std::to_string(topology.highest_tier_allowed),
                     "must not be negative");
  if (node["highestTierName"])
    throw FieldError(field + ".highestTierName", optional_string(node, "highestTierName", field),
                     "is not supported: give highestTierAllowed (a tier number)");
  return topology;
}

protocol::PartitionPolicy read_partition_policy(const YAML::Node& node, const std::string& field,
                                                std::int32_t replicas) {
  protocol::PartitionPolicy policy;
  if (!node || node.IsNull()) return policy;
  require_map(node, field);
  reject_unknown(node, {"totalPartitions", "partitionSize", "minPartitions", "networkTopology"}, field);
  policy.total_partitions = optional_int(node, "totalPartitions", field, 0);
  policy.partition_size = optional_int(node, "partitionSize", field, 0);
  policy.min_partitions = optional_int(node, "minPartitions", field, 0);
  if (policy.total_partitions < 1)
    throw FieldError(field + ".totalPartitions", std::to_string(policy.total_partitions), "must be at least 1");
  if (policy.partition_size < 1)
    throw FieldError(field + ".partitionSize", std::to_string(policy.partition_size), "must be at least 1");
  if (std::int64_t{policy.total_partitions} * policy.partition_size != replicas)
    throw FieldError(field + ".totalPartitions", std::to_string(policy.total_partitions),
                     "totalPartitions x partitionSize must equal the task's " + std::to_string(replicas) +
                         " replicas");
  if (policy.min_partitions < 0 || policy.min_partitions > policy.total_partitions)
    throw FieldError(field + ".minPartitions", std::to_string(policy.min_partitions),
                     "must be between 0 and totalPartitions");
  policy.network_topology = read_network_topology(node["networkTopology"], field + ".networkTopology");
  return policy;
}

protocol::TaskDependency read_task_dependency(const YAML::Node& node, const std::string& field) {
  protocol::TaskDependency dependency;
  if (!node || node.IsNull()) return dependency;
  require_map(node, field);
  reject_unknown(node, {"name", "iteration"}, field);
  dependency.names = string_list(node["name"], field + ".name");
  dependency.iteration = optional_string(node, "iteration", field);
  if (!dependency.iteration.empty() && dependency.iteration != "any" && dependency.iteration != "all")
    throw FieldError(field + ".iteration", dependency.iteration, "must be any or all");
  return dependency;
}

void check_task_dependencies(const std::vector<protocol::TaskSpec>& tasks) {
  std::vector<std::vector<std::size_t>> edges(tasks.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const std::vector<std::string>& names = tasks[i].depends_on.names;
    for (std::size_t n = 0; n < names.size(); ++n) {
      const std::string item = task_field(i) + ".dependsOn.name[" + std::to_string(n) + "]";
      if (names[n] == tasks[i].name) throw FieldError(item, names[n], "a task cannot depend on itself");
      std::size_t target = tasks.size();
      for (std::size_t t = 0; t < tasks.size(); ++t)
        if (tasks[t].name == names[n]) target = t;
      if (target == tasks.size()) throw FieldError(item, names[n], "no task of the job has this name");
      edges[i].push_back(target);
    }
  }
  std::vector<int> state(tasks.size(), 0);
  for (std::size_t i = 0; i < tasks.size(); ++i)
    if (reaches_cycle(i, edges, state))
      throw FieldError(task_field(i) + ".dependsOn", tasks[i].name,
                       "task dependencies form a cycle; they must be a directed acyclic graph");
}

}  // namespace gantry::config
