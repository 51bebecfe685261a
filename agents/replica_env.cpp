#include "agents/replica_env.hpp"

#include <map>

namespace gantry::agents {

namespace {

const protocol::ContainerSpec* first_container(const ReplicaLaunch& launch) {
  const protocol::TaskSpec& task = launch.job->tasks.at(launch.task);
  return task.containers.empty() ? nullptr : &task.containers.front();
}

}  // namespace

std::vector<std::string> replica_environment(const ReplicaLaunch& launch, const char* const* base,
                                             const std::vector<protocol::EnvVar>& plugin_env) {
  std::map<std::string, std::string> env;
  for (const char* const* entry = base; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const std::size_t equals = text.find('=');
    if (equals != std::string::npos) env[text.substr(0, equals)] = text.substr(equals + 1);
  }
  if (const protocol::ContainerSpec* container = first_container(launch)) {
    for (const protocol::EnvVar& var : container->env) env[var.name] = var.value;
  }
  env["GANTRY_JOB"] = launch.job->name;
  env["GANTRY_TASK"] = launch.job->tasks.at(launch.task).name;
  env["GANTRY_REPLICA_INDEX"] = std::to_string(launch.index);
  env["GANTRY_CLUSTER"] = launch.cluster;
  env["GANTRY_NODE"] = launch.node;
  env["GANTRY_DISPATCH_ID"] = std::to_string(launch.key.dispatch);
  env["GANTRY_EPOCH"] = std::to_string(launch.epoch);
  env["MASTER_ADDR"] = launch.master_addr.empty() ? "127.0.0.1" : launch.master_addr;
  env["MASTER_PORT"] = std::to_string(launch.master_port);
  env["RANK"] = std::to_string(launch.rank);
  env["WORLD_SIZE"] = std::to_string(launch.world_size);
  // Elastic jobs re-rendezvous on a resize (docs/elastic.md).
  env["GANTRY_ELASTIC_EPOCH"] = std::to_string(launch.elastic_epoch);
  if (!launch.elastic_state.empty()) env["GANTRY_ELASTIC_STATE"] = launch.elastic_state;
  for (const protocol::EnvVar& var : plugin_env) env[var.name] = var.value;

  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

std::vector<std::string> replica_argv(const ReplicaLaunch& launch,
                                      const std::vector<ContainerChange>& changes) {
  std::vector<std::string> argv;
  if (const protocol::ContainerSpec* container = first_container(launch)) {
    const ContainerChange* change = change_for(changes, container->name);
    argv = change != nullptr && !change->command.empty() ? change->command : container->command;
    argv.insert(argv.end(), container->args.begin(), container->args.end());
  }
  return argv;
}

}  // namespace gantry::agents
