// What a stage of the scheduling pass sees: the pass's time, the clusters,
// the jobs, and the few actions that change what the pass decides, as
// Volcano's actions see a Session and call its Allocate. SchedulerCore owns
// the state; a stage that reaches it only through here can do what this list
// says and nothing else (docs/adding-a-policy.md, "The pass's stages").
// Defined beside the pass that hands it out (scheduler_pass.cpp): only that
// side sees SchedulerCore.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "hub/cluster_state.hpp"
#include "hub/dispatch.hpp"
#include "hub/failure_memo.hpp"
#include "hub/job.hpp"
#include "hub/pending_shapes.hpp"
#include "hub/placement.hpp"
#include "hub/placement_policy.hpp"
#include "hub/queue_tree.hpp"
#include "hub/resources.hpp"
#include "hub/scheduler_options.hpp"
#include "hub/sla_watch.hpp"

namespace gantry::hub {

class SchedulerCore;

class PassSession {
 public:
  // Made by SchedulerCore::schedule for one pass. What a stage asks for once
  // per job it looks at is reached inline, not through the core.
  PassSession(SchedulerCore& core, TimeMs now);

  TimeMs now() const { return now_; }
  const Job& job(JobId id) const { return jobs_[id]; }
  // Mutable for holds; the set of clusters is fixed during a pass.
  std::span<ClusterState> clusters();
  const Dispatch& dispatch(DispatchId id) const;
  // The hub's default placement policy (gantry.io/placement unset).
  const PlacementPolicy& default_policy() const;
  // The policy of the job's queue (or an ancestor's), else the default.
  const PlacementPolicy& policy_for(const Job& job) const;
  const SlaWatch& sla_watch() const;
  // Committed elastic dispatches running below their job's replica count.
  const std::set<DispatchId>& elastic_below() const;
  // Whether `amount` more may run for a job of `queue` now: within the
  // capabilities of the queue and its ancestors, and not on what other
  // queues are guaranteed of the pool's free resources.
  bool within_queue_limits(QueueIndex queue, const ResourceVector& amount) const;
  // Why a job of the queue may not start now for its queues' limits (a
  // capability, or what other queues are guaranteed); nullopt when it may.
  std::optional<PendingReason> queue_limits_block(const Job& job) const;
  // Mutable for the shares a stage that orders queues keeps current
  // (QueueTree::refresh_share); jobs enter and leave queues only through the
  // actions below.
  QueueTree& queues() { return queues_; }
  const SchedulerOptions& options() const { return options_; }
  // The pending jobs' shape classes (hub/pending_shapes.hpp).
  const PendingShapes& pending_shapes() const { return shapes_; }
  // The pass's failed placements: what a job no smaller would find too.
  FailureMemo& failures() { return failures_; }
  // Whether the job's queue may still search for runs to evict for it in this pass.
  bool may_search_evictions(const Job& job) const;
  // Whether the job holds a backfill reservation from this pass.
  bool reserved(JobId id) const;

  // ---- node-level fit
  // Places the gang on the cluster's nodes (hub/placement.hpp), taking what
  // it places out of the nodes' free resources, into assignment(). False,
  // leaving the cluster as it was, when fewer than its min_available fit.
  bool fit(ClusterState& cluster, const GangShape& gang, JobId requester,
           const PlacementPolicy& policy);
  // The last fit's replicas; a stage may give some back (ClusterState::give)
  // and drop them before acting on the rest.
  std::vector<NodeAssignment>& assignment();
  // The same fit for replicas planned to end as `timing` says, into `out`
  // (a backfill plan's own buffer).
  bool fit(ClusterState& cluster, const GangShape& gang, JobId requester,
           const PlacementPolicy& policy, const ReplicaTiming& timing,
           std::vector<NodeAssignment>& out);
  // When a run of the job started at `start` is planned to end: its time
  // limit, or its queue's learned runtime (planned_ends.cpp); kNever without a limit.
  TimeMs expected_end(const Job& job, TimeMs start) const;

  // ---- actions
  // Admits and places one pending job, evicting for it where its queue may
  // (reclaim, preemption): true when it got a dispatch and left its queue.
  bool attempt(JobId id);
  // The same for a job whose entry in its queue the stage holds.
  bool attempt(JobId id, PendingPosition at);
  // A backfill reservation from running jobs' planned ends: true when the
  // job got one now; false when backfill is off (no reservations), it holds
  // one from this pass already, or no cluster's plan frees enough.
  bool reserve(JobId id);
  // The job was looked at in this pass: its own pending reason is current.
  void note_visited(JobId id) { jobs_[id].reason_pass = pass_; }
  // The pass left the class's jobs unvisited, for `reason`: what each shows
  // until it is looked at again.
  void note_shape_skipped(ShapeClassId shape, const PendingReason& reason) {
    shapes_.note_skipped(shape, reason, pass_);
  }
  // The elastic dispatch's last part grows by assignment(), which costs its
  // queue `amount`: held and charged until its agent answers the Resize.
  void start_growth(DispatchId id, const ResourceVector& amount);

 private:
  SchedulerCore& core_;
  TimeMs now_;
  std::uint32_t pass_;  // the pass's number, for pending reasons
  // Members of the core, which outlives the pass.
  std::vector<Job>& jobs_;
  QueueTree& queues_;
  PendingShapes& shapes_;
  FailureMemo& failures_;
  const SchedulerOptions& options_;
};

}  // namespace gantry::hub
