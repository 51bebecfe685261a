// One scheduling pass: its stages in order, what they see of the core
// (PassSession), and the attempt a stage makes for one job: whether it passes
// its queues' limits, and where it fits.
#include <algorithm>

#include "hub/elastic.hpp"
#include "hub/elastic_growth.hpp"
#include "hub/pass_session.hpp"
#include "hub/scheduler.hpp"
#include "hub/starvation.hpp"

namespace gantry::hub {

// The pass, in order (docs/adding-a-policy.md, "The pass's stages").
const SchedulerCore::PassStage SchedulerCore::kPassStages[] = {
    {"lifecycle-waits",  // restart backoffs that ran out, PodPending timeouts (job_lifecycle.cpp)
     [](SchedulerCore& core, PassSession& session) {
       core.release_restart_waits(session.now());
       core.fire_pending_timeouts(session.now());
     }},
    {"shares",  // deserved shares for the current pool, and who is over them now
     [](SchedulerCore& core, PassSession&) {
       core.refresh_queues();
       core.sync_over_share();
     }},
    {"overruns",  // runs past their expected runtime are planned to their limits
     [](SchedulerCore& core, PassSession& session) {
       core.plan_overrun_runs_to_limits(session.now());
     }},
    {"begin", [](SchedulerCore& core, PassSession& session) { core.begin_pass(session.now()); }},
    {"growth-expiry",  // elastic growths their agents did not answer (elastic.cpp)
     [](SchedulerCore& core, PassSession& session) { core.expire_growth(session.now()); }},
    {"starvation",  // starvation.cpp
     [](SchedulerCore& core, PassSession& session) { serve_starving(session, core.pass_.holds); }},
    {"queues",  // queue_stage.cpp
     [](SchedulerCore& core, PassSession& session) { core.pass_.queue_stage.serve(session); }},
    {"elastic-growth",  // after every pending job had its turn (elastic_growth.cpp)
     [](SchedulerCore&, PassSession& session) { grow_elastic(session); }},
    {"end",  // reservations give back their holds (backfill.cpp)
     [](SchedulerCore& core, PassSession&) {
       core.backfill_.end_pass(core.clusters_, core.jobs_);
     }},
};

const std::vector<Decision>& SchedulerCore::schedule(TimeMs now) {
  decisions_.clear();
  ++passes_;
  PassSession session(*this, now);
  for (const PassStage& stage : kPassStages) stage.run(*this, session);
  pass_.open = false;
  return decisions_;
}

std::vector<std::string_view> SchedulerCore::pass_stage_names() {
  std::vector<std::string_view> names;
  for (const PassStage& stage : kPassStages) names.push_back(stage.name);
  return names;
}

// ------------------------------------------------------------------ what a stage sees

// PassSession's view of SchedulerCore (hub/pass_session.hpp): each call reads
// or runs one member.
PassSession::PassSession(SchedulerCore& core, TimeMs now)
    : core_(core),
      now_(now),
      pass_(core.passes_),
      jobs_(core.jobs_),
      queues_(core.queues_),
      shapes_(core.pending_shapes_),
      failures_(core.pass_.failures),
      options_(core.options_) {}

std::span<ClusterState> PassSession::clusters() {
  return core_.clusters_;
}

const Dispatch& PassSession::dispatch(DispatchId id) const {
  return core_.dispatches_.at(id);
}

const PlacementPolicy& PassSession::policy_for(const Job& job) const {
  return core_.policy_for(job);
}

const PlacementPolicy& PassSession::default_policy() const {
  return core_.policy();
}

const SlaWatch& PassSession::sla_watch() const {
  return core_.sla_watch_;
}

const std::set<DispatchId>& PassSession::elastic_below() const {
  return core_.elastic_below_;
}

bool PassSession::within_queue_limits(QueueIndex queue, const ResourceVector& amount) const {
  return hub::within_queue_limits(core_.queues_, queue, amount, core_.pass_.pool_free);
}

bool PassSession::fit(ClusterState& cluster, const GangShape& gang, JobId requester,
                      const PlacementPolicy& policy) {
  return core_.placer_.place(cluster, gang, core_.pass_.assignment, requester, &policy).fits;
}

bool PassSession::fit(ClusterState& cluster, const GangShape& gang, JobId requester,
                      const PlacementPolicy& policy, const ReplicaTiming& timing,
                      std::vector<NodeAssignment>& out) {
  return core_.placer_.place(cluster, gang, out, requester, &policy, timing).fits;
}

TimeMs PassSession::expected_end(const Job& job, TimeMs start) const {
  return core_.expected_end(job, start);
}

std::optional<PendingReason> PassSession::queue_limits_block(const Job& job) const {
  return core_.queue_limits_block(job);
}

bool PassSession::may_search_evictions(const Job& job) const {
  return core_.eviction_search_for(job).allowed;
}

bool PassSession::reserved(JobId id) const {
  return core_.backfill_.reserved(id);
}

std::vector<NodeAssignment>& PassSession::assignment() {
  return core_.pass_.assignment;
}

bool PassSession::attempt(JobId id) {
  return core_.attempt(id, now_);
}

bool PassSession::attempt(JobId id, PendingPosition at) {
  core_.pass_.serving = id;
  core_.pass_.serving_at = at;
  const bool placed = core_.attempt(id, now_);
  core_.pass_.serving.reset();
  return placed;
}

bool PassSession::reserve(JobId id) {
  return core_.options_.reservations > 0 && !core_.backfill_.reserved(id) &&
         core_.backfill_.reserve(*this, id);
}

void PassSession::start_growth(DispatchId id, const ResourceVector& amount) {
  core_.start_growth(core_.dispatches_.at(id), amount, now_);
}

// ------------------------------------------------------------------ begin

// The one place a pass's state is reset: starvation holds from the last pass
// are dropped and every per-pass field of pass_ starts over.
void SchedulerCore::begin_pass(TimeMs now) {
  ResourceVector pool_free;
  for (ClusterState& cluster : clusters_) {
    cluster.clear_holds();
    if (cluster.ready() && !cluster.cordoned()) pool_free += cluster.total_free();
  }
  pass_.begin(now, next_dispatch_, queues_.size(), options_.eviction_searches_per_pass, pool_free,
              pending_shapes_.id_limit());
  backfill_.begin_pass();
}

// A job queued during a pass (a victim sent back): a class it made, or whose
// id it reuses, starts with no pass state.
void SchedulerCore::note_enqueued_in_pass(const Job& job, const PendingKey& key) {
  const ShapeClassId shape = job.shape_class;
  const bool new_class = shape != kIndividualShape && pending_shapes_.shape(shape).pending == 1;
  if (shape != kIndividualShape) pass_.failures.fit_shapes(pending_shapes_.id_limit());
  if (new_class) pass_.failures.reset_shape(shape);
  pass_.queue_stage.note_enqueued(job, key, pending_shapes_.id_limit(), new_class);
}

// ------------------------------------------------------------------ one job

bool SchedulerCore::attempt(JobId id, TimeMs now) {
  ++placement_attempts_;
  Job& job = jobs_[id];
  if (std::optional<PendingReason> blocked = queue_limits_block(job)) {
    job.reason = *blocked;
    return false;
  }
  const TimeMs end = end_if_started(job, pass_.now);
  const PlacementPolicy* policy = &policy_for(job);
  backfill_.lend_holds(clusters_, id, end);
  bool placed = false;
  if (std::optional<PendingReason> failed = pass_.failures.covering(job, policy, end)) {
    job.reason = *failed;
  } else {
    placed = place(id);
    if (!placed) pass_.failures.remember(job, policy, end);
  }
  if (!placed) placed = make_room(id, now);
  // The common case, no reservations, costs one branch per decision.
  if (backfill_.holding())
    backfill_.settle_holds(clusters_, placed ? find_dispatch(job.dispatch) : nullptr);
  if (!placed && job.reason.kind != job.reported_reason) {
    job.reported_reason = job.reason.kind;
    reason_changes_.push_back(id);
  }
  return placed;
}

// Capability of the queue and its ancestors, then the guarantees other queues
// do not use: a job may not start on resources promised elsewhere. Returns
// why the job may not start, if so.
std::optional<PendingReason> SchedulerCore::queue_limits_block(const Job& job) const {
  QueueIndex capped = 0;
  ResourceId resource = 0;
  if (!queues_.within_capability(job.queue, job.minimum(), capped, resource)) {
    PendingReason reason{PendingReason::Kind::kQueueAtCapability};
    reason.queue = capped;
    reason.resource = resource;
    reason.needed = queues_.node(capped).allocated.get(resource) + job.minimum().get(resource);
    reason.available = queues_.node(capped).spec.capability.value.get(resource);
    return reason;
  }
  const ResourceVector usable = pass_.pool_free - queues_.unused_guarantees_of_others(job.queue);
  if (!job.minimum().fits_in(usable)) {
    // Only a shortage caused by guarantees is reported here; a plain lack of
    // capacity is found, with per-cluster detail, by try_place.
    if (!job.minimum().fits_in(pass_.pool_free)) return std::nullopt;
    PendingReason reason{PendingReason::Kind::kGuaranteedToOthers};
    job.minimum().first_excess(usable, reason.resource);
    reason.needed = job.minimum().get(reason.resource);
    reason.available = std::max<std::int64_t>(0, usable.get(reason.resource));
    return reason;
  }
  return std::nullopt;
}

// Commits the job's placement as a dispatch (one cluster, else a split when
// the job allows one), or records why it has none.
bool SchedulerCore::place(JobId id) {
  Placement placement = try_place(id);
  if (placement.fits()) {
    trim_to_queue_limits(id, placement);
    const PartPlacement part = placement.part();
    commit_dispatch(id, std::span<const PartPlacement>(&part, 1));
    return true;
  }
  jobs_[id].reason = why_unplaced(jobs_[id], placement);
  if (jobs_[id].split_allowed) return place_split(id);
  return false;
}

// Tries the clusters worth trying in the policy's order and takes the first
// node-level fit; on failure the cluster is left as it was.
Placement SchedulerCore::try_place(JobId id) {
  const Job& job = jobs_[id];
  const PlacementPolicy& policy = policy_for(job);
  policy.rank_clusters(clusters_, job, options_.topology_tiers, pass_.now, pass_.candidates);
  // By its limit: the latest it may end (drains are what plans expect).
  const ReplicaTiming timing{end_if_started(job, pass_.now)};
  Placement placement;
  for (const RankedCluster& candidate : pass_.candidates) {
    const ClusterIndex c = candidate.cluster;
    const FitResult fit =
        placer_.place(clusters_[c], job.gang, pass_.assignment, id, &policy, timing);
    if (fit.fits) {
      placement.cluster = c;
      placement.assignment = pass_.assignment;
      return placement;
    }
    if (fit.placed > placement.closest_placed) {
      placement.closest_placed = fit.placed;
      placement.closest_cluster = c;
    }
  }
  return placement;
}

}  // namespace gantry::hub
