#include "bench/core_bench.hpp"
#include "config/command_line.hpp"
#include "hub/placement_policy.hpp"

namespace gantry::bench {
namespace {

namespace cl = command_line;

hub::QueueStrategy policy(const std::string& text) {
  if (text == "fifo") return hub::QueueStrategy::kStrictFifo;
  if (text == "firstfit") return hub::QueueStrategy::kBestEffortFifo;
  throw std::invalid_argument("expected fifo or firstfit");
}

std::string placement(const std::string& text) {
  if (hub::find_placement_policy(text) == nullptr)
    throw std::invalid_argument("expected one of " + hub::placement_policy_names());
  return text;
}

template <typename Number>
void add_positive(CLI::App& app, const std::string& name, Number& target,
                  const std::string& description) {
  cl::add_read<Number>(app, name, target, cl::positive<Number>("expected a positive number"),
                       description)
      ->type_name("N");
}

void define(CLI::App& app, CoreBenchOptions& options) {
  cl::configure(
      app,
      "usage: gantry-bench-core [--clusters 100] [--nodes 1000] [--queues 1000] [--jobs 1000000]\n"
      "                         [--events 1000] [--max-seconds 120] [--seed 1] [--policy "
      "firstfit|fifo]\n"
      "                         [--trace-dir DIR] [--no-evictions]\n"
      "                         [--placement binpack|spread|gpu-available|topology] [--split]\n"
      "                         [--visit-every-job]\n");
  app.set_help_flag("--help", "Print this help message and exit");
  app.description(
      "Submits --jobs gang jobs (sizes drawn like the ITP traces) into --queues queues over "
      "--clusters\n"
      "clusters of --nodes 8-GPU nodes, runs the first scheduling pass, then measures --events "
      "steady-state\n"
      "events (one job ends, one is submitted, one pass). The core runs with the hub's default "
      "options\n"
      "(reclaim and preemption on) unless --no-evictions. The last line printed is one JSON "
      "object.");
  add_positive(app, "--clusters", options.clusters, "member clusters (default 100)");
  add_positive(app, "--nodes", options.nodes, "8-GPU nodes per cluster (default 1000)");
  add_positive(app, "--queues", options.queues, "queues (default 1000)");
  add_positive(app, "--jobs", options.jobs, "pending jobs before the first pass (default 1000000)");
  add_positive(app, "--events", options.events, "steady-state events to measure (default 1000)");
  add_positive(app, "--max-seconds", options.max_seconds,
               "... or stop after this much scheduling time (default 120)");
  add_positive(app, "--seed", options.seed, "random seed (default 1)");
  cl::add_read<hub::QueueStrategy>(app, "--policy", options.strategy, policy,
                                   "queueing strategy (default firstfit)")
      ->type_name("firstfit|fifo");
  cl::add_read<std::optional<std::filesystem::path>>(
      app, "--trace-dir", options.trace_dir, cl::path,
      "draw job sizes from the ITP traces in DIR (clusterNN.csv)")
      ->type_name("DIR");
  cl::add_switch_off(app, "--no-evictions", options.evictions,
                     "run the core without reclaim and preemption");
  cl::add_read<std::string>(app, "--placement", options.placement, placement,
                            "the core's placement policy (default binpack, the hub's)")
      ->type_name("binpack|spread|gpu-available|topology");
  app.add_flag("--split", options.split,
               "every job may be split across clusters (gantry.io/split: allowed)");
  cl::add_switch_off(app, "--visit-every-job", options.skip_failing_shapes,
                     "passes visit every pending job (no skipping of shape classes that "
                     "cannot start) and eviction searches walk every run: the figures before "
                     "incremental passes");
}

}  // namespace

CoreBenchOptions parse_core_bench_options(const std::vector<std::string>& args) {
  return cl::parse_options("gantry-bench-core", define, args);
}

std::string core_bench_usage() {
  return cl::usage("gantry-bench-core", define);
}

}  // namespace gantry::bench
