// The hand-made trace of the start-time tests: two clusters, eight jobs.
//   ca: 2 nodes x 8 GPUs          cb: 1 node x 8 GPUs
//   job  submit  duration  gpus   job  submit  duration  gpus
//   a1      0      100       8    b1      0       60       4
//   a2      0       50       8    b2      5       40       8
//   a3     10      100      16    b3     10       20       2
//   a4     20       30       4    b4     15       10       4
#pragma once

#include <cstdint>
#include <vector>

#include "sim/cluster_layout.hpp"
#include "sim/itp_trace.hpp"
#include "sim/replay.hpp"

namespace gantry::sim::testing {

inline std::vector<Trace> hand_traces() {
  return {
      Trace{"ca", {{"a1", 0, 100, 8}, {"a2", 0, 50, 8}, {"a3", 10, 100, 16}, {"a4", 20, 30, 4}}},
      Trace{"cb", {{"b1", 0, 60, 4}, {"b2", 5, 40, 8}, {"b3", 10, 20, 2}, {"b4", 15, 10, 4}}}};
}

inline std::vector<SimCluster> hand_clusters() {
  return {SimCluster{"ca", identical_gpu_nodes("ca", 2)},
          SimCluster{"cb", identical_gpu_nodes("cb", 1)}};
}

// Start times in seconds, in outcome order (a1..a4, b1..b4); -1 for a job that never ran.
using Starts = std::vector<std::int64_t>;

inline Starts start_seconds(const ReplayResult& result) {
  Starts starts;
  for (const JobOutcome& job : result.jobs) starts.push_back(job.ran ? job.start_ms / 1000 : -1);
  return starts;
}

}  // namespace gantry::sim::testing
