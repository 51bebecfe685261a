// Everything one scheduling pass keeps between its decisions, reset in one
// place (PassState::begin) at the start of every pass. The buffers are reused
// from pass to pass, so a decision allocates nothing once they are warm.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "hub/failure_memo.hpp"
#include "hub/job.hpp"
#include "hub/pending_shapes.hpp"
#include "hub/placement.hpp"
#include "hub/placement_policy.hpp"
#include "hub/queue_stage.hpp"
#include "hub/queue_tree.hpp"
#include "hub/split_planner.hpp"
#include "hub/starvation.hpp"

namespace gantry::hub {

// Where try_place put a gang, or how close it came.
struct Placement {
  ClusterIndex cluster = kNoCluster;  // kNoCluster: no cluster fits the gang
  // One entry per placed replica; a view into PassState::assignment, valid
  // until the next placement.
  std::span<const NodeAssignment> assignment;
  // On failure, the cluster that placed the most replicas, and how many (for
  // the pending reason); kNoCluster when no cluster got a node-level try.
  ClusterIndex closest_cluster = kNoCluster;
  std::int32_t closest_placed = -1;

  bool fits() const { return cluster != kNoCluster; }
  PartPlacement part() const { return PartPlacement{cluster, assignment}; }
};

struct PassState {
  TimeMs now = 0;
  DispatchId first_dispatch = 0;  // dispatches from this pass are never victims
  ResourceVector pool_free;       // free in ready clusters, kept current
  std::uint32_t eviction_searches_left = 0;

  // Per queue (indexed by QueueIndex).
  std::vector<char> tried_eviction;

  FailureMemo failures;  // gangs that found no place, and the classes they cover

  bool open = false;  // between begin and the end of schedule()
  // The job the queue stage is attempting and its entry in its queue, so
  // that placing it takes it out of the queue without a search.
  std::optional<JobId> serving;
  PendingPosition serving_at;
  QueueStage queue_stage;  // queues served in DRF order (hub/queue_stage.hpp)

  // Reused buffers.
  std::vector<RankedCluster> candidates;   // try_place's clusters, best first
  std::vector<NodeAssignment> assignment;  // the latest Placement's replicas
  SplitScratch split;                      // a split placement being planned
  StarvationHolds holds;                   // nodes held for jobs past their SLA

  void begin(TimeMs pass_now, DispatchId next_dispatch, std::size_t queues,
             std::uint32_t eviction_searches, const ResourceVector& free_in_ready_clusters,
             std::size_t shape_ids) {
    now = pass_now;
    first_dispatch = next_dispatch;
    pool_free = free_in_ready_clusters;
    eviction_searches_left = eviction_searches;
    tried_eviction.assign(queues, 0);
    failures.begin(pass_now, shape_ids);
    open = true;
    queue_stage.begin(queues, shape_ids);
  }
};

}  // namespace gantry::hub
