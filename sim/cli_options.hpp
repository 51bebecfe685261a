// gantry-sim's command line. Scripts depend on these flag names.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sim/cluster_layout.hpp"
#include "sim/replay_config.hpp"

namespace gantry::sim {

struct SimOptions {
  std::filesystem::path trace_dir;
  std::vector<int> clusters;        // clusterNN.csv numbers; empty: every file in trace_dir
  std::vector<std::int64_t> nodes;  // 8-GPU nodes per cluster; empty: the sizing rule
  std::optional<std::filesystem::path> openb;       // node list to split instead of identical nodes
  double size_percentile = kDefaultSizePercentile;  // of the sizing rule
  ReplayConfig config;
  // --time-limit-seed: the trace-random draws' seed (TimeLimitModel::seed),
  // so that one setting can be judged on several draws of the limits.
  std::optional<std::uint64_t> time_limit_seed;
  std::optional<std::filesystem::path> json;
  std::optional<std::filesystem::path> jobs_csv;
  bool help = false;
};

// Throws std::invalid_argument naming the flag and the bad value.
SimOptions parse_sim_options(const std::vector<std::string>& args);

std::string sim_usage();

}  // namespace gantry::sim
