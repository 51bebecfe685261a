// gantry-sim: replays GPU job traces through the hub's scheduling core and
// prints how long jobs waited and how busy the GPUs were.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "config/command_line.hpp"
#include "sim/cli_options.hpp"
#include "sim/jobs_csv.hpp"
#include "sim/replay.hpp"
#include "sim/report.hpp"
#include "sim/simulation.hpp"

namespace {

int cannot_write(const char* flag, const std::filesystem::path& file) {
  std::cerr << "gantry-sim: " << flag << ": cannot write \"" << file.string() << "\"\n";
  return 1;
}

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
    if (!out.flush()) return cannot_write("--json", *options.json);
  }
  if (options.jobs_csv) {
    std::ofstream out(*options.jobs_csv);
    write_jobs_csv(out, sim.clusters, sim.traces, result);
    if (!out.flush()) return cannot_write("--jobs-csv", *options.jobs_csv);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  gantry::sim::SimOptions options;
  if (const auto exit_code = gantry::command_line::parse_or_exit_code(
          "gantry-sim", GANTRY_VERSION, argc, argv, gantry::sim::parse_sim_options,
          gantry::sim::sim_usage(), options))
    return *exit_code;
  try {
    return run(options);
  } catch (const std::exception& error) {
    std::cerr << "gantry-sim: " << error.what() << "\n";
    return 2;
  }
}
