// gantry-sim: replays GPU job traces through the hub's scheduling core and
// prints how long jobs waited and how busy the GPUs were.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "sim/cli_options.hpp"
#include "sim/replay.hpp"
#include "sim/report.hpp"
#include "sim/simulation.hpp"

namespace {

int run(const gantry::sim::SimOptions& options) {
  using namespace gantry::sim;
  const Simulation sim = prepare_simulation(options);
  std::cout << "clusters:\n";
  for (const auto& line : sim.sizing) std::cout << "  " << line << "\n";

  const auto started = std::chrono::steady_clock::now();
  const ReplayResult result = replay(sim.clusters, sim.traces, options.config);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;

  const Report report = make_report(sim.clusters, options.config, result);
  print_table(std::cout, report);
  // Wall time goes to stderr: stdout and the JSON stay identical run to run.
  std::cout.flush();
  std::fprintf(stderr, "replayed %zu jobs in %.2f s\n", result.jobs.size(), took.count());
  if (options.json) {
    std::ofstream out(*options.json);
    out << to_json(report);
    if (!out.flush()) {
      std::cerr << "gantry-sim: --json: cannot write \"" << options.json->string() << "\"\n";
      return 1;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const auto options =
        gantry::sim::parse_sim_options(std::vector<std::string>(argv + 1, argv + argc));
    if (options.help) {
      std::cout << gantry::sim::sim_usage();
      return 0;
    }
    return run(options);
  } catch (const std::exception& error) {
    std::cerr << "gantry-sim: " << error.what() << "\n";
    return 2;
  }
}
