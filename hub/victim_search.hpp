// Which running gangs to evict on one cluster so that a job fits there, as
// Kueue's preemptor picks its targets: the cluster's runs in eviction order
// (lowest priority, newest first), each taken when the eviction rules
// (hub/eviction_rules.hpp) let it go for the job, until the job's gang fits
// at node level; then the ones whose room the gang did not need after all
// are kept. It reads the runs and the queues and changes nothing: the
// cluster is left as it was found. Which clusters are searched, and the
// evictions themselves, are the core's (hub/preemption.cpp).
#pragma once

#include <set>
#include <unordered_map>
#include <vector>

#include "hub/cluster_state.hpp"
#include "hub/dispatch.hpp"
#include "hub/eviction_rules.hpp"
#include "hub/job.hpp"
#include "hub/placement.hpp"
#include "hub/placement_policy.hpp"
#include "hub/queue_tree.hpp"

namespace gantry::hub {

// The runs whose eviction makes the job fit on `cluster`; none: no plan.
struct VictimPlan {
  ClusterIndex cluster = kNoCluster;
  std::vector<DispatchId> victims;
};

class VictimSearch {
 public:
  VictimSearch(const EvictionRules& rules, const std::unordered_map<DispatchId, Dispatch>& runs,
               GangPlacer& placer)
      : rules_(rules), runs_(runs), placer_(placer) {}

  // The fewest victims among `candidates` (runs on cluster `c`, in eviction
  // order) after which job `id` fits there by `policy`; `reclaim` as its
  // search allows (EvictionRules::search_for).
  VictimPlan plan(JobId id, ClusterState& cluster, ClusterIndex c,
                  const std::set<RunningKey>& candidates, Reclaim reclaim,
                  const PlacementPolicy& policy) const;

 private:
  bool fits(JobId id, ClusterState& cluster, const PlacementPolicy& policy) const;
  void keep_unneeded(JobId id, ClusterState& cluster, VictimPlan& plan,
                     const PlacementPolicy& policy) const;
  const std::vector<NodeAssignment>& placed_on(DispatchId run, ClusterIndex c) const {
    return runs_.at(run).part_on(c)->assignment;
  }

  const EvictionRules& rules_;
  const std::unordered_map<DispatchId, Dispatch>& runs_;
  GangPlacer& placer_;  // check() only: it leaves the cluster as it was
};

}  // namespace gantry::hub
