// A job as the scheduling core tracks it: its gang shape, where it is in its
// life, and why it is waiting. The full Volcano spec rides along (shared,
// immutable) only so the hub can hand it to an agent; the core never reads it.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hub/cluster_state.hpp"
#include "hub/gang.hpp"
#include "hub/job_lifecycle.hpp"
#include "protocol/messages.hpp"

namespace gantry::hub {

using TimeMs = std::int64_t;
using JobId = std::uint32_t;
using QueueIndex = std::uint32_t;
using ClusterIndex = std::uint32_t;
// A pending job's shape class in its queue (hub/pending_shapes.hpp).
using ShapeClassId = std::uint32_t;
inline constexpr ShapeClassId kIndividualShape = ~ShapeClassId{0};
using DispatchId = std::uint64_t;
inline constexpr ClusterIndex kNoCluster = ~ClusterIndex{0};
// A planned end or start that is not known (a job without a time limit).
inline constexpr TimeMs kNever = std::numeric_limits<TimeMs>::max();

enum class JobPhase : std::uint8_t {
  kPending,     // queued, waiting for a place
  kDispatched,  // prepared on its clusters, waiting for every part to be admitted
  kRunning,     // every part admitted and committed: its replicas start
  kCompleted,
  kFailed,
  kAborted,  // cancelled
  // Lifecycle policies (hub/job_lifecycle.hpp): the parts are being stopped,
  // then the job goes back to Pending (restart) or ends in the named phase.
  kRestarting,
  kCompleting,
  kAborting,
  kTerminating,
  kTerminated,  // ended by a TerminateJob policy
};
// Volcano phase name shown to users (kDispatched shows as "Pending").
std::string_view phase_name(JobPhase phase);
bool is_terminal(JobPhase phase);
// Restarting / Completing / Aborting / Terminating: a lifecycle policy acted
// and the job's parts are being stopped.
bool is_stopping_for_policy(JobPhase phase);

// Why a job is not running, kept as numbers and turned into text only when
// someone asks (describe / get), so a failed decision never allocates.
struct PendingReason {
  enum class Kind : std::uint8_t {
    kNone,
    kNotYetConsidered,
    kBehindQueueHead,  // strict FIFO: an older job of the queue waits first
    kNoReadyCluster,
    kExceedsEveryCluster,   // larger than any cluster's total allocatable
    kInsufficientCapacity,  // no cluster has that much free now
    kGangDoesNotFitNodes,   // enough in total, not on nodes
    kRejectedByCluster,     // the agent refused the dispatch
    kClusterLost,           // its cluster went away; requeued
    kNoAllowedCluster,      // pinned to clusters that do not exist / are not ready
    kQueueAtCapability,     // its queue (or an ancestor) would exceed capability
    kGuaranteedToOthers,    // what is free is promised to other queues' guarantees
    kPreempted,             // evicted to make room for another job; requeued
    kDrained,               // its cluster was drained; requeued once its run stopped
    kSplitDoesNotFit,       // split allowed, but not even every cluster together fits it
    kRestartBackoff,        // restarted by a lifecycle policy; not placed before its backoff ends
    kTopologyDoesNotFit,    // networkTopology hard: no domain of an allowed tier holds it
    kFenced,                // its agent stopped its run, cut off from the hub; requeued
  };
  Kind kind = Kind::kNotYetConsidered;
  ResourceId resource = 0;            // the resource short
  ClusterIndex cluster = kNoCluster;  // the best cluster found
  std::int64_t needed = 0;            // milli-units or replicas, by kind
  std::int64_t available = 0;         // best found
  std::int32_t replicas_needed = 0;
  std::int32_t replicas_placed = 0;
  QueueIndex queue = 0;  // kQueueAtCapability: the queue at its cap
  JobId by_job = 0;      // kPreempted: the job that took the place
};

// A cluster that refused a job is not tried again for it until `until`;
// each refusal doubles the wait (capped).
struct ClusterBackoff {
  ClusterIndex cluster = kNoCluster;
  std::int32_t refusals = 0;
  TimeMs until = 0;
};

// A cluster with its score in one placement decision (higher is preferred;
// equal scores go to the higher tie-break, then the lower index).
struct ClusterRank {
  ClusterIndex cluster = kNoCluster;
  std::int64_t score = 0;
  std::int64_t tie = 0;
};

// One part of a placement as users see it: the cluster and replicas per task
// (indexed like GangShape::tasks).
struct PartSummary {
  ClusterIndex cluster = kNoCluster;
  std::vector<std::int32_t> task_replicas;
};

// Where a reserved job would start (backfill), as describe shows it.
struct PlannedStart {
  TimeMs start = kNever;
  ClusterIndex cluster = kNoCluster;
  std::vector<NodeIndex> nodes;
  std::uint64_t report_generation = 0;  // the cluster's, when `nodes` were chosen
};

// What a job knows about where it may go and where it went. Most pending jobs
// have none of it, so it lives behind one pointer (Job::placement_notes) and
// costs a pending job 8 bytes until it is needed.
struct PlacementNotes {
  Labels cluster_selector;  // gantry.io/cluster-selector, match-labels
  std::vector<ClusterBackoff> backoffs;
  std::vector<ClusterRank> last_scores;  // every cluster ranked by its last placement
  std::vector<PartSummary> parts;        // where its current / last dispatch placed it
  PlannedStart planned;                  // its reservation in the last pass, if any
};

// What a job's runs left behind: the agent's last message, why it last went
// back to its queue, and what lifecycle policies (hub/job_lifecycle.hpp) keep
// between runs. Most pending jobs never ran, so it lives behind one pointer
// (Job::run_history) and costs them 8 bytes until something is written.
struct RunHistory {
  std::string message;          // last message from the agent (why it failed, ...)
  PendingReason requeue_cause;  // why it last went back to its queue
  // Restarts so far, the last event (its task index in spec->tasks, replica
  // and exit code) and action.
  std::int32_t retries = 0;
  LifecycleEvent last_event = LifecycleEvent::kNone;
  LifecycleAction last_action = LifecycleAction::kNone;
  std::int32_t last_event_task = -1;
  std::int32_t last_event_replica = -1;
  std::int32_t last_exit_code = 0;
  TimeMs restart_at = 0;        // a restarted job is not placed before this
  TimeMs pending_deadline = 0;  // when its PodPending policy acts; 0: none
  std::string first_failure;    // why its first attempt failed ("failed after N retries: ...")
};

inline const RunHistory kNoRunHistory{};

// What a job asks the core for, resolved once from any source (a manifest,
// a Karmada binding, the store) by make_job_request (hub/job_request.hpp) and
// kept by the core as given: JobRequest and Job both hold it, and submit
// copies it in one assignment. A Volcano Job field the core schedules by is
// read by the reader, resolved into here and used where it matters.
struct ResolvedJob {
  std::string name;
  // The name of the key that submitted it (docs/security.md): an operator
  // may cancel and delete only its own jobs. Not a scheduling input.
  std::string submitter;
  std::int32_t priority = 0;
  // PriorityClass preemptionPolicy: Never = the job never evicts others to
  // start (it may still be evicted).
  bool may_preempt = true;
  // gantry.io/split: allowed — a gang no single cluster fits may be placed
  // across several, each part whole replicas.
  bool split_allowed = false;
  GangShape gang;
  // What agents get (optional: the sim and bench submit none); the core never reads it.
  std::shared_ptr<const protocol::JobSpec> spec;
  // The spec's lifecycle policies, maxRetry and minSuccess, resolved from it
  // (make_job_request); null: none (jobs without a spec: sim, bench).
  std::shared_ptr<const JobPolicies> policies;
  // spec.ttlSecondsAfterFinished in ms: a finished job is forgotten this long
  // after it finished. -1: kept until deleted.
  std::int64_t ttl_after_finished_ms = -1;
};

// A submission: the resolved job, and what submit resolves against the hub's
// queues and clusters.
struct JobRequest : ResolvedJob {
  std::string queue = "default";
  std::vector<std::string> allowed_clusters;  // empty: any cluster
  // Only clusters whose labels have every one of these (gantry.io/cluster-selector).
  Labels cluster_selector;
  // Pending longer than this, the job gets nodes held for it (Volcano's
  // sla-waiting-time). -1: the queue's default; 0: never.
  std::int64_t sla_waiting_ms = -1;
  // How long the job may run once started (gantry.io/time-limit, or the pod
  // templates' activeDeadlineSeconds); executors end it there, and backfill
  // plans with it. -1: the queue's default; 0: none.
  std::int64_t time_limit_ms = -1;
  // The field the limit was read from, for a refusal to name what the user
  // wrote; empty: the gantry.io/time-limit annotation.
  std::string time_limit_field;
  // metadata.generateName: when `name` is empty the core makes one from it
  // (hub/job_retention.hpp) and the spec agents get carries that name.
  std::string generate_name;
};

// Small fields sit in pairs: one alone costs padding in every job record.
struct Job : ResolvedJob {
  QueueIndex queue = 0;
  std::uint32_t epoch = 0;     // placements so far; the current dispatch's epoch
  std::uint64_t sequence = 0;  // submission order, breaks ties
  TimeMs submitted_ms = 0;
  TimeMs started_ms = 0;
  TimeMs finished_ms = 0;
  ResourceVector total;  // gang.total(), computed once at submit (set_request)
  std::vector<ClusterIndex> allowed_clusters;  // empty: any

  JobPhase phase = JobPhase::kPending;
  // Deleted, expired or released to the store: its slot waits for a later
  // submission (SchedulerCore::forget).
  bool forgotten = false;
  PendingReason reason;
  std::int32_t requeues = 0;
  std::int32_t preemptions = 0;
  std::int64_t sla_waiting_ms = 0;                  // resolved at submit; 0 = none
  std::int64_t time_limit_ms = 0;                   // resolved at submit; 0 = none
  DispatchId dispatch = 0;                          // current dispatch, 0 when none
  ClusterIndex cluster = kNoCluster;                // where it runs / ran (its first part)
  std::vector<protocol::TaskStatus> tasks;          // summed over its parts
  std::unique_ptr<PlacementNotes> placement_notes;  // null until needed
  std::unique_ptr<RunHistory> run_history;          // null until written
  std::unique_ptr<ResourceVector> minimum_;         // null: the same as total (set_request)
  ShapeClassId shape_class = kIndividualShape;      // while pending
  std::uint32_t reason_pass = 0;  // the pass that last visited it (SchedulerCore::pending_reason)
  // The kind of reason last reported as an event (SchedulerCore::take_reason_changes).
  PendingReason::Kind reported_reason = PendingReason::Kind::kNotYetConsidered;

  // gang.minimum(): what the min_available cheapest replicas ask.
  const ResourceVector& minimum() const { return minimum_ ? *minimum_ : total; }
  // Sets total and minimum, computed once at submit. Most gangs must start
  // whole, so the minimum is kept apart only where it differs: a pending job
  // costs 8 bytes for it, not 128.
  void set_request(const ResourceVector& all, const ResourceVector& least) {
    total = all;
    if (least == all)
      minimum_.reset();
    else
      minimum_ = std::make_unique<ResourceVector>(least);
  }

  const Labels* cluster_selector() const {
    return placement_notes && !placement_notes->cluster_selector.empty()
               ? &placement_notes->cluster_selector
               : nullptr;
  }
  bool has_backoffs() const { return placement_notes && !placement_notes->backoffs.empty(); }
  // When its SLA waiting time runs out (the starvation guard's watch); kNever
  // without an SLA.
  TimeMs sla_deadline() const {
    return sla_waiting_ms > 0 ? submitted_ms + sla_waiting_ms : kNever;
  }
  // Pending past its SLA waiting time at `at` (started then: the starvation
  // guard's start).
  bool past_sla_at(TimeMs at) const { return sla_waiting_ms > 0 && sla_deadline() <= at; }
  const RunHistory& history() const { return run_history ? *run_history : kNoRunHistory; }
  RunHistory& edit_history() {
    if (!run_history) run_history = std::make_unique<RunHistory>();
    return *run_history;
  }
  PlacementNotes& notes() {
    if (!placement_notes) placement_notes = std::make_unique<PlacementNotes>();
    return *placement_notes;
  }
};

// spec.minSuccess is given and at least that many replicas succeeded.
bool min_success_met(const Job& job);

}  // namespace gantry::hub
