// What a stage of the scheduling pass sees: the pass's time, the clusters,
// the jobs, and the few actions that change what the pass decides, as
// Volcano's actions see a Session and call its Allocate. SchedulerCore owns
// the state; a stage that reaches it only through here can do what this list
// says and nothing else (docs/adding-a-policy.md, "The pass's stages").
#pragma once

#include <span>

#include "hub/cluster_state.hpp"
#include "hub/job.hpp"
#include "hub/placement_policy.hpp"
#include "hub/sla_watch.hpp"

namespace gantry::hub {

class SchedulerCore;

class PassSession {
 public:
  explicit PassSession(SchedulerCore& core) : core_(core) {}

  TimeMs now() const;
  const Job& job(JobId id) const;
  // Mutable for holds; the set of clusters is fixed during a pass.
  std::span<ClusterState> clusters();
  // The hub's default placement policy (gantry.io/placement unset).
  const PlacementPolicy& default_policy() const;
  const SlaWatch& sla_watch() const;

  // ---- actions
  // Admits and places one pending job, evicting for it where its queue may
  // (reclaim, preemption): true when it got a dispatch and left its queue.
  bool attempt(JobId id);
  // A backfill reservation from running jobs' planned ends: true when the
  // job got one now; false when backfill is off (no reservations), it holds
  // one from this pass already, or no cluster's plan frees enough.
  bool reserve(JobId id);

 private:
  SchedulerCore& core_;
};

}  // namespace gantry::hub
