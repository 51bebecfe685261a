// Whether a trace job could ever run: the replay leaves out, as
// unschedulable, a job that no cluster it may use could hold even when empty
// (a strict-FIFO queue would wait for it forever). Answers per GPU count,
// cached: trace jobs differ only by their size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "hub/cluster_state.hpp"
#include "hub/gang.hpp"
#include "hub/placement.hpp"
#include "hub/scheduler.hpp"
#include "hub/split_planner.hpp"

namespace gantry::sim {

class EmptyPoolFit {
 public:
  // `options`: the core's, for its placement policy and its split part limit.
  explicit EmptyPoolFit(const hub::SchedulerOptions& options);

  // Adds the next cluster, as it is before any job runs.
  void add_cluster(const hub::ClusterState& empty);

  // `gang` (a job of `gpus` GPUs) fits `cluster` when it is empty.
  bool fits_cluster(std::uint32_t cluster, std::int64_t gpus, const hub::GangShape& gang);
  // ... some cluster, when it is empty.
  bool fits_some_cluster(std::int64_t gpus, const hub::GangShape& gang);
  // ... split across the empty clusters, as the core would split it.
  bool fits_split(std::int64_t gpus, const hub::GangShape& gang);

  // The parts the core's split gives the gang on the empty clusters (the
  // core's own planner, hub/split_planner.hpp, clusters in index order), 0
  // when it does not fit.
  std::size_t split_parts(const hub::GangShape& gang);

 private:
  std::uint32_t max_split_parts_;
  hub::GangPlacer placer_;  // chooses nodes as the core does
  std::vector<hub::ClusterState> empty_;
  std::vector<hub::ClusterRank> every_cluster_;  // split candidates, in index order
  hub::SplitScratch split_;
  std::vector<std::map<std::int64_t, bool>> fits_cluster_;  // per cluster: gpus -> fits
  std::map<std::int64_t, bool> fits_split_;                 // gpus -> fits split
};

}  // namespace gantry::sim
