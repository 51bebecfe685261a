// From command-line options to what a replay needs: the traces and the
// clusters they run on, with a line per cluster saying how it was sized.
#pragma once

#include <string>
#include <vector>

#include "sim/cli_options.hpp"
#include "sim/cluster_layout.hpp"
#include "sim/itp_trace.hpp"

namespace gantry::sim {

struct Simulation {
  std::vector<Trace> traces;
  std::vector<SimCluster> clusters;  // clusters[i] is where traces[i] came from
  std::vector<std::string> sizing;   // one line per cluster, for people
};

// Loads the traces and builds the clusters. Throws CsvError on a bad file and
// std::invalid_argument when the options do not fit the data.
Simulation prepare_simulation(const SimOptions& options);

}  // namespace gantry::sim
