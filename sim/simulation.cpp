#include "sim/simulation.hpp"

#include <cstdio>
#include <stdexcept>

namespace gantry::sim {
namespace {

std::vector<Trace> load_traces(const SimOptions& options) {
  std::vector<int> numbers = options.clusters;
  if (numbers.empty()) {
    if (!std::filesystem::is_directory(options.trace_dir))
      throw std::invalid_argument("--trace-dir: not a directory (got \"" +
                                  options.trace_dir.string() + "\")");
    numbers = find_itp_cluster_numbers(options.trace_dir);
    if (numbers.empty())
      throw std::invalid_argument("--trace-dir: no clusterNN.csv files in \"" +
                                  options.trace_dir.string() + "\"");
  }
  std::vector<Trace> traces;
  for (int number : numbers)
    traces.push_back(load_itp_trace(itp_trace_path(options.trace_dir, number)));
  return traces;
}

std::string describe(const SimCluster& cluster, const std::string& how) {
  char line[256];
  std::snprintf(line, sizeof line, "%-12s %5zu nodes %6lld GPUs  %s", cluster.name.c_str(),
                cluster.nodes.size(), static_cast<long long>(cluster.gpus()), how.c_str());
  return line;
}

std::string rule_inputs(const TraceDemand& demand) {
  char text[160];
  std::snprintf(text, sizeof text, "largest job %lld GPUs, busy GPUs: mean %.1f, p%g %lld",
                static_cast<long long>(demand.largest_job_gpus), demand.mean_busy_gpus,
                demand.percent, static_cast<long long>(demand.percentile_busy_gpus));
  return text;
}

}  // namespace

Simulation prepare_simulation(const SimOptions& options) {
  Simulation sim;
  sim.traces = load_traces(options);
  std::vector<std::int64_t> node_counts;
  std::vector<std::int64_t> largest_jobs;
  std::vector<std::string> how;
  for (std::size_t c = 0; c < sim.traces.size(); ++c) {
    const TraceDemand demand = measure_demand(sim.traces[c], options.size_percentile);
    largest_jobs.push_back(demand.largest_job_gpus);
    if (options.nodes.empty()) {
      node_counts.push_back(nodes_for_demand(demand));
      how.push_back("sizing rule (" + rule_inputs(demand) + ")");
    } else {
      node_counts.push_back(options.nodes[c]);
      how.push_back("given by --nodes (" + rule_inputs(demand) + ")");
    }
  }

  std::vector<std::vector<hub::NodeSpec>> nodes;
  if (options.openb) {
    std::vector<std::int64_t> weights;
    for (std::int64_t count : node_counts) weights.push_back(count * kGpusPerNode);
    nodes = split_openb_nodes(load_openb_nodes(*options.openb), weights, largest_jobs);
    for (auto& line : how) line = "openb share of " + line;
  } else {
    for (std::size_t c = 0; c < sim.traces.size(); ++c)
      nodes.push_back(identical_gpu_nodes(sim.traces[c].cluster_name, node_counts[c]));
  }
  for (std::size_t c = 0; c < sim.traces.size(); ++c) {
    sim.clusters.push_back(SimCluster{sim.traces[c].cluster_name, std::move(nodes[c])});
    sim.sizing.push_back(describe(sim.clusters.back(), how[c]));
  }
  return sim;
}

}  // namespace gantry::sim
