#include "bench/e2e/e2e_options.hpp"

#include <limits>

#include "config/command_line.hpp"

namespace gantry::bench::e2e {

namespace {

namespace cl = command_line;

template <typename Number>
void add_number(CLI::App& app, const std::string& name, Number& target, bool zero_ok,
                const std::string& type, const std::string& description) {
  auto read = zero_ok ? cl::number_from<Number>(0, std::numeric_limits<Number>::max(),
                                                "expected a non-negative number")
                      : cl::positive<Number>("expected a positive number");
  cl::add_read<Number>(app, name, target, std::move(read), description)->type_name(type);
}

void define(CLI::App& app, E2eOptions& options) {
  cl::configure(
      app,
      "usage: gantry-bench-e2e [--jobs N] [--clusters N] [--nodes N] [--gpus-per-node N]\n"
      "                        [--window N] [--rate R] [--hold-ms N] [--no-usage-reports]\n"
      "                        [--raw-messages N] [--hub PATH] [--hub-log-level LEVEL]\n"
      "                        [--state DIR] [--trace FILE] [--heartbeat-ms N] "
      "[--settle-seconds S]\n");
  add_number(app, "--jobs", options.jobs, false, "N",
             "jobs to submit (default 20000), 1 GPU each, unique names");
  add_number(app, "--clusters", options.clusters, false, "N",
             "simulated member clusters (default 100)");
  add_number(app, "--nodes", options.nodes, false, "N", "nodes per cluster (default 10)");
  add_number(app, "--gpus-per-node", options.gpus_per_node, false, "N",
             "GPUs per node (default 8)");
  add_number(app, "--window", options.window, false, "N",
             "submissions in flight on the admin socket (default 64)");
  add_number(app, "--rate", options.rate, true, "R",
             "paced submissions per second (default 0: as fast as acks come)");
  add_number(app, "--hold-ms", options.hold_ms, true, "N",
             "a job runs this long on its fake cluster (default 100)");
  app.add_flag_callback(
      "--no-usage-reports", [&options] { options.usage_reports = false; },
      "fake agents skip the UsageReport after each change");
  add_number(app, "--raw-messages", options.raw_messages, false, "N",
             "pipelined round trips for the raw ZeroMQ figure (default 200000)");
  cl::add_text(app, "--hub", options.hub_binary,
               "gantry-hub binary (default: the one built with this benchmark)")
      ->type_name("PATH");
  cl::add_text(app, "--hub-log-level", options.hub_log_level,
               "the hub's --log-level (default warn; info logs 3 lines per job)")
      ->type_name("LEVEL");
  cl::add_text(app, "--state", options.state_dir,
               "the hub's --state (default: a fresh temporary directory)")
      ->type_name("DIR");
  cl::add_text(app, "--trace", options.trace_file,
               "write each job's submit/ack/dispatch times to FILE (CSV)")
      ->type_name("FILE");
  add_number(app, "--heartbeat-ms", options.heartbeat_ms, false, "N",
             "the hub's --heartbeat-ms (default 1000)");
  add_number(app, "--settle-seconds", options.settle_seconds, false, "S",
             "how long to wait for the last dispatches (default 30)");
}

}  // namespace

std::string e2e_usage() {
  E2eOptions unused;
  CLI::App app("", "gantry-bench-e2e");
  define(app, unused);
  return app.help();
}

E2eOptions parse_e2e_options(const std::vector<std::string>& args) {
  E2eOptions options;
  CLI::App app("", "gantry-bench-e2e");
  define(app, options);
  options.help = cl::parse(app, args) == cl::Parsed::kHelp;
  return options;
}

}  // namespace gantry::bench::e2e
