#include "agents/agent_options.hpp"

#include "config/command_line.hpp"

namespace gantry::agents {

namespace {

namespace cl = command_line;

const cl::Wording kWording{"{}: needs a value", "{}: unknown option", "unexpected argument \"{}\""};

cl::Reader<std::int32_t> up_to(std::int32_t max) {
  return cl::positive<std::int32_t>("must be a whole number from 1 to " + std::to_string(max), max);
}

std::string executor(const std::string& text) {
  if (text != "sim" && text != "process") throw std::invalid_argument("must be sim or process");
  return text;
}

std::string address(const std::string& text) {
  if (text.empty()) throw std::invalid_argument("must name a host or address");
  return text;
}

// Repeatable, unlike the other flags: each SPEC adds a fault.
CLI::Option* add_test_faults(CLI::App& app, TestFaults& faults) {
  return app
      .add_option_function<std::vector<std::string>>(
          "--test-fault",
          [&faults](const std::vector<std::string>& specs) {
            for (const std::string& spec : specs) {
              try {
                add_test_fault(spec, faults);
              } catch (const std::invalid_argument& refusal) {
                throw CLI::ValidationError("--test-fault",
                                           std::string(refusal.what()) + " (got \"" + spec + "\")");
              }
            }
          },
          "for tests only: drop-prepares=N (the first N Prepares are lost), reject-prepares "
          "(every Prepare is rejected), exit-after-admit (exit with status 3 right after the "
          "first Admit); repeatable")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->type_name("SPEC");
}

void define(CLI::App& app, AgentOptions& options) {
  constexpr std::int32_t kMaxMs = 3600 * 1000;
  cl::configure(app,
                "usage: gantry-agent --hub tcp://HOST:PORT --inventory FILE [--cluster NAME]\n"
                "                    [--executor sim|process] [--heartbeat-ms N] [--liveness N]\n"
                "                    [--max-backoff-ms N] [--work-dir DIR] [--log-level LEVEL]\n"
                "                    [--advertise-address HOST] [--prepare-hold-ms N]\n"
                "                    [--test-fault SPEC]...\n");
  cl::add_text(app, "--hub", options.hub_endpoint, "where the hub listens for agents (required)")
      ->type_name("tcp://HOST:PORT");
  cl::add_text(app, "--inventory", options.inventory_path,
               "the cluster's nodes: .yaml inventory or openb .csv (required)")
      ->type_name("FILE");
  cl::add_text(app, "--cluster", options.cluster, "defaults to the inventory's cluster.name")
      ->type_name("NAME");
  cl::add_read<std::string>(app, "--executor", options.executor, executor,
                            "sim, or process: replicas as local processes (default sim)")
      ->type_name("sim|process");
  cl::add_read(app, "--heartbeat-ms", options.heartbeat_ms, up_to(kMaxMs),
               "heartbeat interval until the hub's Welcome sets it (default 1000)")
      ->type_name("N");
  cl::add_read(app, "--liveness", options.liveness, up_to(1000),
               "silent heartbeats before the hub counts as dead (default 3)")
      ->type_name("N");
  cl::add_read(app, "--max-backoff-ms", options.max_backoff_ms, up_to(kMaxMs),
               "cap on the reconnect backoff (default 32000)")
      ->type_name("N");
  cl::add_text(app, "--work-dir", options.work_dir,
               "process executor logs (default ./var/agent-<cluster>)")
      ->type_name("DIR");
  cl::add_read<std::string>(app, "--advertise-address", options.advertise_address, address,
                            "the rendezvous host this agent names when it holds part 0 of a "
                            "gang: reachable from every cluster (default 127.0.0.1)")
      ->type_name("HOST");
  cl::add_read(app, "--prepare-hold-ms", options.prepare_hold_ms, up_to(kMaxMs),
               "how long an admitted part's resources stay held without a Commit "
               "(default 60000)")
      ->type_name("N");
  add_test_faults(app, options.test_faults);
  cl::add_log_level(app, options.log_level);
}

}  // namespace

AgentOptions parse_agent_options(const std::vector<std::string>& args) {
  AgentOptions options = cl::parse_options("gantry-agent", define, args, kWording);
  if (options.help) return options;
  if (options.hub_endpoint.empty()) throw std::invalid_argument("--hub: is required");
  if (options.inventory_path.empty()) throw std::invalid_argument("--inventory: is required");
  return options;
}

std::string agent_usage() {
  return cl::usage("gantry-agent", define);
}

}  // namespace gantry::agents
