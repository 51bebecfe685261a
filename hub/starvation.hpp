// The starvation stage (Volcano's sla-waiting-time): a job pending past its
// SLA is tried before anything else in the pass; if it still does not fit, it
// gets a backfill reservation, or else nodes held for it (starvation holds)
// so that smaller jobs cannot keep taking the room it waits for.
#pragma once

#include <span>
#include <vector>

#include "hub/cluster_state.hpp"
#include "hub/job.hpp"
#include "hub/placement_policy.hpp"

namespace gantry::hub {

class PassSession;

// Holds nodes for starving jobs, one job at a time. Keeps its scratch from
// pass to pass, so holding allocates nothing once warm.
class StarvationHolds {
 public:
  // On the cluster the policy chooses, the nodes it chooses for each of the
  // job's min_available replicas, as far as they go. Nothing when no cluster
  // may take it.
  void hold_for(std::span<ClusterState> clusters, const PlacementPolicy& policy, const Job& job,
                JobId id);

 private:
  void hold_on(ClusterState& cluster, const PlacementPolicy& policy, const Job& job, JobId id);

  std::vector<ResourceVector> promised_;  // per node of the chosen cluster
  std::vector<NodeIndex> promised_nodes_;
};

// True when every node of every cluster the job may use is held already (by
// starving jobs with earlier deadlines): it can neither start nor hold
// anything. False when no cluster it may use is ready.
bool every_allowed_node_held(std::span<const ClusterState> clusters, const Job& job);

// The stage: the jobs past their SLA, earliest deadline first.
void serve_starving(PassSession& session, StarvationHolds& holds);

}  // namespace gantry::hub
