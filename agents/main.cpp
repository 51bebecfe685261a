// gantry-agent: runs one member cluster's replicas for the hub.
#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <memory>

#include "agents/agent_core.hpp"
#include "agents/agent_loop.hpp"
#include "agents/agent_options.hpp"
#include "agents/process_executor.hpp"
#include "agents/signal_pipe.hpp"
#include "agents/sim_executor.hpp"
#include "config/command_line.hpp"
#include "config/inventory.hpp"

namespace {

using namespace gantry;

constexpr int kUsageError = 2;

// --cluster wins over the inventory's cluster.name, so one inventory file can
// describe several identical member clusters.
std::string resolve_cluster(const agents::AgentOptions& options,
                            const config::Inventory& inventory) {
  if (options.cluster.empty() && inventory.cluster_name.empty()) {
    throw std::invalid_argument("--cluster: is required (the inventory names no cluster)");
  }
  return options.cluster.empty() ? inventory.cluster_name : options.cluster;
}

std::unique_ptr<agents::Executor> make_executor(const agents::AgentOptions& options,
                                                const std::string& cluster) {
  if (options.executor == "process") {
    const std::string dir = options.work_dir.empty() ? "./var/agent-" + cluster : options.work_dir;
    return std::make_unique<agents::ProcessExecutor>(dir);
  }
  return std::make_unique<agents::SimExecutor>();
}

int serve(const agents::AgentOptions& options) {
  config::Inventory inventory;
  std::string cluster;
  try {
    inventory = config::load_inventory(options.inventory_path);
    cluster = resolve_cluster(options, inventory);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gantry-agent: inventory %s: %s\n", options.inventory_path.c_str(),
                 e.what());
    return kUsageError;
  }
  // Handlers before the ZeroMQ context starts its threads; SIGPIPE is an
  // error return on a closed log pipe, not a reason to die.
  agents::SignalPipe stop({SIGINT, SIGTERM});
  std::signal(SIGPIPE, SIG_IGN);

  std::unique_ptr<agents::Executor> executor = make_executor(options, cluster);
  agents::AgentCore core(
      cluster, inventory, *executor,
      agents::AgentCoreOptions{options.advertise_address, options.prepare_hold_ms});
  agents::SessionTiming timing;
  timing.heartbeat_ms = options.heartbeat_ms;
  timing.liveness = options.liveness;
  timing.max_backoff_ms = options.max_backoff_ms;
  agents::AgentLoop loop({options.hub_endpoint, timing, options.test_faults}, core, *executor);
  spdlog::info("cluster {}: {} nodes, {} executor", cluster, inventory.nodes.size(),
               options.executor);
  const int status = loop.run(stop.fd());
  spdlog::info("stopped");
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  agents::AgentOptions options;
  if (const auto exit_code = command_line::parse_or_exit_code(
          "gantry-agent", argc, argv, agents::parse_agent_options, agents::agent_usage(), options))
    return *exit_code;
  spdlog::set_level(spdlog::level::from_str(options.log_level));
  try {
    return serve(options);
  } catch (const std::exception& e) {
    spdlog::critical("{}", e.what());
    return 1;
  }
}
