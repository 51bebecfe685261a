// The scheduling core: clusters, queues, jobs and the pass that decides which
// pending job goes to which cluster, and which running jobs must make room.
// Pure and deterministic: no threads, no sockets, no clock reads; every entry
// point takes `now`. The hub's scheduler actor, the simulator and the
// benchmarks all drive this same class.
//
// A pass (schedule()):
//  1. jobs pending longer than their SLA waiting time are tried first, oldest
//     deadline first; one that still does not fit gets nodes held for it,
//     which no other job may take (starvation holds);
//  2. then queues are served in hierarchical weighted-DRF order (among
//     siblings: higher spec.priority first, then lower allocated dominant
//     share / weight), one job at a time, each queue's jobs by priority then
//     submission; a strict-FIFO queue stops at its first job that cannot run,
//     a best-effort queue skips it;
//  3. a job passes its queues' capabilities and the guarantees other queues
//     do not use, then needs a node-level gang fit in one eligible cluster
//     (which clusters, in which order, on which nodes: its queue's
//     PlacementPolicy); a job that allows a split and fits no single cluster
//     may be placed across several, fewest parts first (split.cpp);
//  4. failing that, once per queue per pass, whole running gangs are evicted
//     when that makes it fit: from reclaimable queues above their deserved
//     share when its own queue stays within deserved (reclaim), or of lower
//     priority in its own queue (preemption); lowest priority, newest first.
//
// A placement becomes a Dispatch of one or more parts (one per cluster).
// Dispatch is two-phase (docs/wire-flow.md): each part is prepared on its
// cluster's agent; only when every part is admitted is the dispatch committed
// and the job Running; one refusal releases every part, backs that cluster off
// for the job and requeues it.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hub/backfill.hpp"
#include "hub/cluster_state.hpp"
#include "hub/dispatch.hpp"
#include "hub/eviction_rules.hpp"
#include "hub/job.hpp"
#include "hub/pass_state.hpp"
#include "hub/pending_shapes.hpp"
#include "hub/placement.hpp"
#include "hub/placement_policy.hpp"
#include "hub/queue_tree.hpp"
#include "hub/runtime_estimate.hpp"
#include "hub/scheduler_options.hpp"
#include "hub/sla_watch.hpp"
#include "hub/starvation.hpp"

namespace gantry::hub {

// Each part placed by adopt(): where an earlier hub's dispatch runs.
struct AdoptedPart {
  ClusterIndex cluster = kNoCluster;
  std::int32_t part = 0;
  const std::vector<protocol::PlacedReplica>* replicas = nullptr;
};

// A dispatch the core gave up on (its cluster was lost or drained): the
// agents of `clusters` must stop its parts.
struct WithdrawnDispatch {
  DispatchId dispatch = 0;
  JobId job = 0;
  std::vector<ClusterIndex> clusters;
};

// What part_admitted made of an Admit.
enum class AdmitOutcome : std::uint8_t {
  kIgnored,          // no such dispatch or part, or not preparing any more
  kWaitingForParts,  // others have not answered yet
  kAllAdmitted,      // the last part admitted: commit() may go ahead
};

// What part_finished made of a part's end.
struct PartEnd {
  enum class Kind : std::uint8_t {
    kIgnored,    // no such dispatch or part, or it already ended
    kPartDone,   // the part completed; others still run
    kJobEnded,   // the job ended (Completed or Failed)
    kRequeued,   // a stopping (drained) dispatch's last part stopped: requeued
    kLifecycle,  // a lifecycle policy acted: SchedulerCore::take_lifecycle_steps says how
  };
  Kind kind = Kind::kIgnored;
  // Parts that still run and must be stopped (a failed part fails the gang).
  std::vector<ClusterIndex> stop;
};

// What a lifecycle policy (or the default for its event) did to a job, for
// the hub to carry out and show: stop the listed parts of the dispatch, note
// the text in the job's history, record the end when `phase` is terminal.
struct LifecycleStep {
  JobId job = 0;
  DispatchId dispatch = 0;
  std::vector<ClusterIndex> stop;       // committed parts its agents must stop (Cancel)
  JobPhase phase = JobPhase::kPending;  // the job's phase after the step
  std::string text;
};

struct Decision {
  enum class Kind : std::uint8_t {
    kDispatch,  // prepare every part of the dispatch (`cluster`: its first part's)
    kEvict,     // stop the dispatch's part on `cluster`; the job is already requeued
    kResize,    // an elastic dispatch's part on `cluster` grows or shrinks (Resize)
  };
  Kind kind = Kind::kDispatch;
  JobId job = 0;
  DispatchId dispatch = 0;
  ClusterIndex cluster = kNoCluster;
};

class SchedulerCore {
 public:
  explicit SchedulerCore(SchedulerOptions options = {});

  // ---- clusters
  ClusterIndex add_cluster(std::string_view name, Labels labels = {});
  std::optional<ClusterIndex> find_cluster(std::string_view name) const;
  std::size_t cluster_count() const { return clusters_.size(); }
  const ClusterState& cluster(ClusterIndex index) const { return clusters_[index]; }
  // A usage report replaces the cluster's nodes. Dispatches listed in
  // `accounted` are counted in the report's `allocated`, so the hub stops
  // holding their nodes; others stay held on top of the report.
  void report_usage(ClusterIndex cluster, const std::vector<NodeSpec>& nodes,
                    const std::vector<DispatchId>& accounted);
  // The same report's OCM scores and GPU usage: stored for operators as they
  // came, never read by a pass (the pass scores clusters from their nodes).
  void record_observed_usage(ClusterIndex cluster, ObservedUsage usage);
  // A not-ready cluster gets no new placements; what it runs stays charged
  // (its agent is silent, maybe only for a while).
  void set_cluster_ready(ClusterIndex cluster, bool ready);
  // Its agent says it takes no work yet, and why ("syncing"): not ready until
  // a usage report without a reason.
  void set_agent_not_ready(ClusterIndex cluster, std::string reason);
  // The cluster is gone (silent past the lost grace): every dispatch with a
  // part there is released and its job requeued; the agents of the returned
  // clusters (its other parts, and the lost one if it ever returns) must stop them.
  std::vector<WithdrawnDispatch> cluster_lost(ClusterIndex cluster, TimeMs now);
  // The agent of `cluster` stopped its part itself, cut off from the hub
  // (self-fencing): an eviction, not a failure. The dispatch is released and
  // its job requeued, unless a PodEvicted policy says otherwise; the agents
  // of the returned clusters must stop its other parts.
  std::vector<WithdrawnDispatch> part_fenced(DispatchId dispatch, ClusterIndex cluster, TimeMs now);
  // A cordoned cluster gets no new placements; what runs there stays.
  void set_cordoned(ClusterIndex cluster, bool cordoned);
  // Cordons the cluster and marks every dispatch with a part there as
  // stopping: its jobs go back to their queues once every part has stopped
  // (part_finished), so a drained job never runs in two places. Returns those
  // dispatches; the caller tells their agents to stop them.
  std::vector<WithdrawnDispatch> drain(ClusterIndex cluster, TimeMs now);
  // Sum of the ready clusters' allocatable: the pool queues share.
  ResourceVector pool_capacity() const;

  // ---- queues
  // Creates or updates a queue; throws FieldError naming the field.
  QueueIndex apply_queue(const QueueSpec& spec);
  // Throws FieldError when the queue cannot be deleted.
  void delete_queue(std::string_view name);
  // Creates a leaf under root with defaults if missing.
  QueueIndex ensure_queue(std::string_view name);
  std::optional<QueueIndex> find_queue(std::string_view name) const { return queues_.find(name); }
  void set_queue_strategy(QueueIndex queue, QueueStrategy strategy);
  const QueueTree& queues() const { return queues_; }
  std::size_t queue_count() const { return queues_.size(); }
  const std::string& queue_name(QueueIndex queue) const { return queues_.node(queue).spec.name; }
  std::size_t queue_pending(QueueIndex queue) const {
    return queues_.node(queue).pending_jobs.size();
  }
  // Refreshes deserved shares for the current pool (done by every pass too).
  void refresh_queues();

  // ---- jobs
  // Throws FieldError: "metadata.name" when the name is taken or empty,
  // "spec.minAvailable" when the gang is malformed, "spec.queue" when the
  // queue does not exist, is closed or is not a leaf.
  JobId submit(JobRequest request, TimeMs now);
  // One scheduling pass: its stages in order. The returned decisions are
  // valid until the next call.
  const std::vector<Decision>& schedule(TimeMs now);
  // The names of the pass's stages, in the order schedule() runs them
  // (docs/adding-a-policy.md, "The pass's stages").
  static std::vector<std::string_view> pass_stage_names();

  // ---- two-phase dispatch, one part (dispatch, cluster) at a time
  // The agent of `cluster` holds the part. Part 0's agent also names the
  // gang's rendezvous (empty host / port 0 from others).
  AdmitOutcome part_admitted(DispatchId dispatch, ClusterIndex cluster,
                             const std::string& rendezvous_host, std::int32_t rendezvous_port,
                             TimeMs now);
  // Every part admitted: the dispatch is committed and the job Running.
  void commit(DispatchId dispatch, TimeMs now);
  // The agent of `cluster` refused the part (or did not answer, or let its
  // hold expire before the commit): every part is released, the cluster backs
  // off for the job (exponential, capped), the job goes back to its queue.
  // Returns the clusters of the other parts, which must release theirs.
  std::vector<ClusterIndex> part_rejected(DispatchId dispatch, ClusterIndex cluster,
                                          std::string_view reason, TimeMs now);
  // Task counts its agent reported for the part; the job's are their sum.
  void update_tasks(DispatchId dispatch, ClusterIndex cluster,
                    std::vector<protocol::TaskStatus> tasks);
  // Its agent says why the part's replicas still wait ("" once they all
  // run). When the last waiting part runs, the job's run starts now: its
  // start time and its planned end count from here. Returns true then.
  bool note_part_waiting(DispatchId dispatch, ClusterIndex cluster, std::string waiting,
                         TimeMs now);
  // Why the dispatch's job still waits on a cluster: "waiting on <cluster>:
  // <reason>" for its first waiting part; "" when none waits.
  std::string waiting_text(const Dispatch& dispatch) const;
  // The part ended on its cluster (kCompleted or kFailed). The job completes
  // when every part has; a failed part fails the job at once.
  PartEnd part_finished(DispatchId dispatch, ClusterIndex cluster, JobPhase phase,
                        std::string_view message, TimeMs now);
  // The agent of `cluster` named the replica whose end failed its part
  // (StatusUpdate event PodFailed); part_finished applies the job's
  // lifecycle policies to it.
  void note_part_failure(DispatchId dispatch, ClusterIndex cluster, std::string_view task,
                         std::int32_t replica, std::int32_t exit_code);
  // After update_tasks: a task whose every replica succeeded fires its
  // TaskCompleted policy (e.g. CompleteJob stops the other tasks).
  void check_tasks_completed(DispatchId dispatch, TimeMs now);
  // What lifecycle policies did since the last call (hub/job_lifecycle.cpp),
  // oldest first; `out` is replaced.
  void take_lifecycle_steps(std::vector<LifecycleStep>& out);
  // Where an adopted dispatch's gang meets, as its earlier hub recorded it.
  void set_rendezvous(DispatchId dispatch, std::string host, std::int32_t port);
  // When the job may be tried on the cluster again (0: not backed off).
  TimeMs backed_off_until(JobId job, ClusterIndex cluster) const;
  // The earliest time after `now` at which a backoff runs out, when a pass
  // may place what it could not before; 0 when none is running.
  TimeMs next_backoff_end(TimeMs now);

  // ---- elastic jobs (elastic.cpp, docs/elastic.md)
  // The agent of `cluster` answered the growth of `elastic_epoch`: admitted,
  // the added replicas run; refused, they are released and growth of the
  // dispatch backs off. Returns false when it answered nothing pending.
  bool resize_answered(DispatchId dispatch, ClusterIndex cluster, std::uint32_t elastic_epoch,
                       bool admitted, TimeMs now);

  // ---- the same for every part at once: a hub whose agents answer at once
  // (the simulator, the benchmarks, tests).
  // Every part admitted and the dispatch committed: the job runs.
  void admitted(DispatchId dispatch, TimeMs now);
  // The first part refused.
  void rejected(DispatchId dispatch, std::string_view reason, TimeMs now);
  // Task counts of a one-part dispatch.
  void update_tasks(DispatchId dispatch, std::vector<protocol::TaskStatus> tasks);
  // Every part ended so (kCompleted or kFailed); frees its resources.
  void finished(DispatchId dispatch, JobPhase phase, std::string_view message, TimeMs now);
  // ---- after a hub restart (recovery.cpp): jobs come back from the store as
  // pending, while member clusters may still run them or have finished them.
  // True when `dispatch` was handed out by an earlier hub (ids below this
  // hub's first_dispatch_id).
  bool from_earlier_hub(DispatchId dispatch) const { return dispatch < options_.first_dispatch_id; }
  const TopologyTiers& topology_tiers() const { return options_.topology_tiers; }
  // Takes the pending job back as Running under an earlier hub's committed
  // `dispatch`, one part per listed cluster, its replicas holding their
  // requests on the named nodes (already counted in the agents' usage
  // reports). False, changing nothing, when the job is not pending, the id
  // is in use, a task or node is unknown, or fewer than minAvailable
  // replicas are listed.
  bool adopt(JobId id, DispatchId dispatch, std::span<const AdoptedPart> parts, TimeMs now);
  // One part on one cluster, committed (a run an agent listed).
  bool adopt(JobId id, ClusterIndex cluster, DispatchId dispatch,
             const std::vector<protocol::PlacedReplica>& replicas, TimeMs now);
  // The pending job ended on `cluster` while the hub was away (kCompleted or
  // kFailed): it leaves its queue with that end.
  void ended_while_away(JobId id, ClusterIndex cluster, JobPhase phase, std::string_view message,
                        TimeMs now);
  // The pending job's run on `cluster` was fenced while the hub was away:
  // requeued as by part_fenced.
  void fenced_while_away(JobId id, ClusterIndex cluster, TimeMs now);

  // Cancels a job. Returns the dispatch the agent must stop, if any. Throws,
  // with the text to show the user, std::out_of_range when no job has that
  // name and std::invalid_argument when the job has already ended.
  std::optional<DispatchId> cancel(std::string_view job, TimeMs now);
  // Forgets an ended job (hub/job_retention.cpp): its name is free again and
  // find_job no longer knows it; its slot stays, empty, marked `forgotten`,
  // until a later submission takes it (the oldest freed first), so memory
  // holds the jobs not forgotten, not every job ever submitted. Whoever keeps
  // a JobId past the job's end checks it still names that job. Throws
  // std::logic_error when the job has not ended.
  void forget(JobId id);
  // Names the core does not hold but may not give a generated name: ended
  // jobs it forgot while the hub's store still keeps them (get jobs lists
  // them). Unset: none.
  void set_names_held_elsewhere(std::function<bool(std::string_view)> held) {
    names_held_elsewhere_ = std::move(held);
  }

  // ---- queries
  std::size_t job_count() const { return jobs_.size(); }
  const Job& job(JobId id) const { return jobs_[id]; }
  std::optional<JobId> find_job(std::string_view name) const;
  const Dispatch* find_dispatch(DispatchId id) const;
  // The policy that ranks the job's clusters: its queue's (or an
  // ancestor's) gantry.io/placement, else the hub's default.
  const PlacementPolicy& policy_for(const Job& job) const;
  // Every cluster worth trying for the job now with the score its policy
  // gives it, best first (what describe shows for a job still pending).
  void score_clusters(const Job& job, TimeMs now, std::vector<ClusterRank>& out) const;
  // The dispatches (sent or running) on one cluster, lowest priority and
  // newest first: O(its dispatches) to walk, not O(every job).
  const std::set<RunningKey>& dispatches_on(ClusterIndex cluster) const {
    return running_on_[cluster];
  }
  std::string reason_text(const Job& job) const;
  // Why the pending job did not start in the last pass: its own reason, or its
  // shape class's when that pass skipped the class (hub/pending_shapes.hpp).
  const PendingReason& pending_reason(const Job& job) const;
  // Resources held on the cluster, by Gantry jobs and anything else its agent reports.
  ResourceVector allocated_on(ClusterIndex cluster) const;
  std::size_t pending_count() const { return pending_total_; }
  // Where the job would start, when a pass reserved its place (describe);
  // nullptr when it has no reservation.
  const PlannedStart* planned_start(const Job& job) const { return hub::planned_start(job); }
  // Placement decisions made so far: one per pending job looked at in a pass
  // (a job skipped because a job no larger already failed counts too).
  std::uint64_t placement_attempts() const { return placement_attempts_; }
  // The jobs a pass left waiting for another kind of reason than the one last
  // taken (each one event, "waiting: ..."), in the order the pass tried them.
  // Swapped into `out`, which is cleared first.
  void take_reason_changes(std::vector<JobId>& out) {
    out.clear();
    out.swap(reason_changes_);
  }

 private:
  friend class PassSession;  // what the pass's stages may read and do (pass_session.hpp)
  // One stage of the pass (scheduler_pass.cpp). A stage that sees only the
  // session is a free function in its own file; the others are still members.
  struct PassStage {
    std::string_view name;
    void (*run)(SchedulerCore& core, PassSession& session);
  };
  static const PassStage kPassStages[];

  // A name for metadata.generateName no live job holds (job_retention.cpp).
  std::string make_name(std::string_view prefix);
  // job bookkeeping (scheduler.cpp)
  void enqueue(JobId id);
  void dequeue(JobId id);
  void release_dispatch(DispatchId id);
  void requeue(JobId id, PendingReason reason, TimeMs now);
  void commit_dispatch(JobId id, std::span<const PartPlacement> parts);
  Dispatch& install_dispatch(JobId id, DispatchId dispatch, std::span<const PartPlacement> parts,
                             bool awaiting_report);
  void note_parts(Job& job, const Dispatch& dispatch);
  void back_off(Job& job, ClusterIndex cluster, TimeMs now);
  void withdraw(DispatchId id, PendingReason reason, TimeMs now,
                std::vector<WithdrawnDispatch>& out, LifecycleEvent event = LifecycleEvent::kNone);
  // lifecycle policies (job_lifecycle.cpp)
  PartEnd part_failed(Dispatch& dispatch, const DispatchPart& part, std::string_view message,
                      TimeMs now);
  std::vector<ClusterIndex> stop_live_parts(Job& job);
  PartEnd part_stopped_in_transition(Dispatch& dispatch, TimeMs now);
  bool requeue_or_apply(JobId id, PendingReason reason, LifecycleEvent event, TimeMs now);
  bool act(JobId id, LifecycleEvent event, LifecycleAction action, std::int64_t timeout_ms,
           std::int32_t task, std::string_view message, TimeMs now);
  void settle(JobId id, TimeMs now);
  void end_job(JobId id, JobPhase phase, std::string_view message, TimeMs now);
  void wait_for_restart(JobId id, TimeMs now);
  void arm_pending_timeout(JobId id, TimeMs now);
  void disarm_pending_timeout(JobId id);
  void release_restart_waits(TimeMs now);
  void fire_pending_timeouts(TimeMs now);
  void note_step(JobId id, DispatchId dispatch, std::vector<ClusterIndex> stop, std::string text);
  void refresh_queue_policies();
  // the pass (scheduler_pass.cpp)
  void begin_pass(TimeMs now);
  void note_enqueued_in_pass(const Job& job, const PendingKey& key);
  bool attempt(JobId id, TimeMs now);
  std::optional<PendingReason> queue_limits_block(const Job& job) const;
  bool place(JobId id);
  Placement try_place(JobId id);
  // split (split.cpp)
  bool place_split(JobId id);
  std::int32_t plan_split(JobId id);
  void undo_split();
  // eviction (preemption.cpp; which runs may go: eviction_rules.hpp)
  bool make_room(JobId id, TimeMs now);
  // Which runs may be evicted for a job, with the pass's time (eviction_rules.hpp).
  EvictionRules eviction_rules() const;
  // Whether make_room may search for victims for the job, and how.
  EvictionSearch eviction_search_for(const Job& job) const;
  const std::set<RunningKey>& eviction_candidates(ClusterIndex cluster,
                                                  const EvictionSearch& search) const;
  // The runs of queues over their deserved share (over_share.cpp).
  bool over_share(QueueIndex queue) const;
  void index_over_share(const RunningKey& key, const Dispatch& dispatch, bool add);
  void sync_over_share(QueueIndex queue);
  void sync_over_share();
  void evict(DispatchId victim, JobId for_job, TimeMs now, ClusterIndex cluster);
  // elastic (elastic.cpp)
  void start_growth(Dispatch& dispatch, const ResourceVector& amount, TimeMs now);
  void expire_growth(TimeMs now);
  void drop_growth(Dispatch& dispatch);
  void note_elastic(const Dispatch& dispatch);
  bool shrink_for(JobId id, Reclaim reclaim);
  bool shrink_on(JobId id, ClusterIndex cluster, Reclaim reclaim);
  void shrink(Dispatch& dispatch, std::size_t replicas);
  void trim_to_queue_limits(JobId id, Placement& placement);
  // run ends (planned_ends.cpp)
  TimeMs expected_end(const Job& job, TimeMs start) const;
  void plan_run_end(Dispatch& dispatch, TimeMs start);
  void set_planned_end(Dispatch& dispatch, TimeMs end);
  void forget_planned_end(Dispatch& dispatch);
  void move_planned_end(Dispatch& dispatch, TimeMs end);
  void count_on_nodes(Dispatch& dispatch, bool counted);
  void count_replica_end(const Dispatch& dispatch, ClusterIndex c, NodeIndex node, bool counted);
  void learn_runtime(const Job& job, TimeMs now);
  void plan_overrun_runs_to_limits(TimeMs now);
  // reasons (reason.cpp)
  PendingReason why_unplaced(const Job& job, const Placement& placement) const;
  std::string render_reason(const Job& job, const PendingReason& reason) const;
  std::string free_per_cluster(const Job& job) const;
  std::string dispatch_text(const Dispatch& dispatch) const;
  const PlacementPolicy& policy() const { return placer_.policy(); }
  JobId job_index(const Job& job) const { return static_cast<JobId>(&job - jobs_.data()); }

  SchedulerOptions options_;
  std::vector<ClusterState> clusters_;
  QueueTree queues_;
  std::vector<Job> jobs_;
  std::unordered_map<std::string, JobId> job_by_name_;
  std::unordered_map<DispatchId, Dispatch> dispatches_;
  SlaWatch sla_watch_;                               // pending jobs with an SLA waiting time
  std::set<std::pair<TimeMs, JobId>> backoff_ends_;  // when each backoff runs out
  // Restarted jobs out of their queue until their restart backoff ends, and
  // pending jobs by when their PodPending policy acts: a pass looks at the
  // first of each only (O(1) per waiting job skipped).
  std::set<std::pair<TimeMs, JobId>> restart_waits_;
  std::set<std::pair<TimeMs, JobId>> pending_deadlines_;
  std::vector<LifecycleStep> lifecycle_steps_;
  std::size_t pending_total_ = 0;
  std::uint64_t next_sequence_ = 1;
  std::uint64_t names_made_ = 0;  // generateName candidates tried so far
  DispatchId next_dispatch_ = 1;
  GangPlacer placer_;  // holds options_.placement's copy that the pass uses
  PendingShapes pending_shapes_;
  std::uint32_t passes_ = 0;  // schedule() calls so far
  std::vector<JobId> reason_changes_;  // take_reason_changes()
  PassState pass_;
  std::vector<Decision> decisions_;
  // By QueueIndex: the policy that ranks its jobs' clusters (refreshed with the queues).
  std::vector<const PlacementPolicy*> queue_policy_;
  std::uint64_t placement_attempts_ = 0;
  // Running gangs per cluster in eviction order (lowest priority, newest first).
  std::vector<std::set<RunningKey>> running_on_;
  // The ones whose queue is above its deserved share on some resource: the
  // only runs a reclaim toward a deserved share may take, so that a search
  // walks them alone instead of every run of every cluster.
  std::vector<std::set<RunningKey>> over_share_on_;
  std::vector<std::uint8_t> over_share_;  // per queue: its runs are in over_share_on_
  // The elastic ones among them: what shrinking for a job walks.
  std::vector<std::set<RunningKey>> elastic_on_;
  // Planned ends per cluster, and a pass's reservations (backfill.hpp).
  Backfill backfill_;
  std::vector<RuntimeEstimate> runtime_estimates_;  // by queue, with learned runtimes
  std::vector<DispatchId> overrun_scratch_;
  // Elastic dispatches running below their job's replica count: growth candidates.
  std::set<DispatchId> elastic_below_;
  // Last: only submit and forget touch them, and the pass's members keep
  // their places.
  std::function<bool(std::string_view)> names_held_elsewhere_;
  std::deque<JobId> free_ids_;  // slots of forgotten jobs, oldest freed first
};

}  // namespace gantry::hub
