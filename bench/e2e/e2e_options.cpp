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

// Flags that take a positive count, in the order --help lists them.
struct CountFlag {
  const char* name;
  std::uint32_t E2eOptions::*field;
  const char* description;
};
const CountFlag kCountFlags[] = {
    {"--jobs", &E2eOptions::jobs, "jobs to submit (default 20000), 1 GPU each, unique names"},
    {"--clusters", &E2eOptions::clusters, "simulated member clusters (default 100)"},
    {"--nodes", &E2eOptions::nodes, "nodes per cluster (default 10)"},
    {"--gpus-per-node", &E2eOptions::gpus_per_node, "GPUs per node (default 8)"},
    {"--window", &E2eOptions::window, "submissions in flight on the admin socket (default 64)"},
    {"--raw-messages", &E2eOptions::raw_messages,
     "pipelined round trips for the raw ZeroMQ figure (default 200000)"},
    {"--heartbeat-ms", &E2eOptions::heartbeat_ms, "the hub's --heartbeat-ms (default 1000)"},
};

// Flags whose text is taken as it is.
struct TextFlag {
  const char* name;
  std::string E2eOptions::*field;
  const char* type;
  const char* description;
};
const TextFlag kTextFlags[] = {
    {"--hub", &E2eOptions::hub_binary, "PATH",
     "gantry-hub binary (default: the one built with this benchmark)"},
    {"--hub-log-level", &E2eOptions::hub_log_level, "LEVEL",
     "the hub's --log-level (default warn; info logs 3 lines per job)"},
    {"--state", &E2eOptions::state_dir, "DIR",
     "the hub's --state (default: a fresh temporary directory)"},
    {"--store", &E2eOptions::store, "URL",
     "the hub's --store, e.g. etcd://127.0.0.1:2379 (default: gantry.db in --state)"},
    {"--trace", &E2eOptions::trace_file, "FILE",
     "write each job's submit/ack/commit times to FILE (CSV)"},
};

void define(CLI::App& app, E2eOptions& options) {
  cl::configure(
      app,
      "usage: gantry-bench-e2e [--jobs N] [--clusters N] [--nodes N] [--gpus-per-node N]\n"
      "                        [--window N] [--rate R] [--hold-ms N] [--no-usage-reports]\n"
      "                        [--raw-messages N] [--hub PATH] [--hub-log-level LEVEL]\n"
      "                        [--state DIR] [--store URL] [--trace FILE] [--heartbeat-ms N]\n"
      "                        [--settle-seconds S] [--scrape-ms N] [--web-stream]\n");
  for (const CountFlag& flag : kCountFlags)
    add_number(app, flag.name, options.*flag.field, false, "N", flag.description);
  add_number(app, "--rate", options.rate, true, "R",
             "paced submissions per second (default 0: as fast as acks come)");
  add_number(app, "--hold-ms", options.hold_ms, true, "N",
             "a job runs this long on its fake cluster (default 100)");
  add_number(app, "--scrape-ms", options.scrape_ms, true, "N",
             "> 0: the hub serves /metrics (--http-listen), scraped this often during the run "
             "(default 0: not served)");
  app.add_flag("--web-stream", options.web_stream,
               "the hub serves its web view (--http-listen) and /api/stream is held open during "
               "the run, as an open page holds it");
  cl::add_switch_off(app, "--no-usage-reports", options.usage_reports,
                     "fake agents skip the UsageReport after each change");
  for (const TextFlag& flag : kTextFlags)
    cl::add_text(app, flag.name, options.*flag.field, flag.description)->type_name(flag.type);
  add_number(app, "--settle-seconds", options.settle_seconds, false, "S",
             "how long to wait for the last commits (default 30)");
}

}  // namespace

std::string e2e_usage() {
  return cl::usage("gantry-bench-e2e", define);
}

E2eOptions parse_e2e_options(const std::vector<std::string>& args) {
  return cl::parse_options("gantry-bench-e2e", define, args);
}

}  // namespace gantry::bench::e2e
