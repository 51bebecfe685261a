// One scheduling pass: its stages in order, and the queue stage: which queue
// is served next (hierarchical weighted DRF), whether its next job passes the
// queue limits, and where it fits.
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
    {"queues", [](SchedulerCore& core, PassSession& session) { core.serve_queues(session); }},
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
TimeMs PassSession::now() const {
  return now_;
}

const Job& PassSession::job(JobId id) const {
  return core_.jobs_[id];
}

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

std::vector<NodeAssignment>& PassSession::assignment() {
  return core_.pass_.assignment;
}

bool PassSession::attempt(JobId id) {
  return core_.attempt(id, now_);
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

// ------------------------------------------------------------------ queue order

// Shares are taken after the starving jobs were served: their dispatches count.
void SchedulerCore::activate_queues() {
  pass_.fit_shapes(pending_shapes_.id_limit());
  for (QueueIndex q = 0; q < queues_.size(); ++q) queues_.refresh_share(q);
  for (QueueIndex q = 0; q < queues_.size(); ++q) {
    const QueueNode& node = queues_.node(q);
    if (node.deleted || !queues_.is_leaf(q) || q == kRootQueue || node.pending_jobs.empty())
      continue;
    pass_.order.cursor(q) = node.pending_jobs.begin();
    pass_.individual_left[q] = pending_shapes_.individual_pending(q);
    for (ShapeClassId shape : pending_shapes_.classes_of(q))
      pass_.shape_left[shape] = pending_shapes_.shape(shape).pending;
    pass_.order.activate(queues_, q);
  }
}

void SchedulerCore::serve_queues(PassSession& session) {
  const TimeMs now = session.now();
  activate_queues();
  QueueOrder& order = pass_.order;
  while (!order.done()) {
    const QueueIndex leaf = order.next(queues_);
    const QueueNode& queue = queues_.node(leaf);
    QueueOrder::Cursor& cursor = order.cursor(leaf);
    const JobId id = cursor->job;
    const ShapeClassId shape = jobs_[id].shape_class;
    jobs_[id].reason_pass = passes_;
    auto next = std::next(cursor);
    if (attempt(id, now)) {  // the job left pending_jobs: its iterator is gone
      cursor = next;
      order.reposition(queues_, leaf);
    } else if (reserve_blocked(session, id)) {
      cursor = next;
    } else if (queue.spec.strategy == QueueStrategy::kStrictFifo) {
      order.deactivate(queues_, leaf);
      continue;
    } else {
      cursor = next;
    }
    note_passed(leaf, shape);
    if (cursor == queue.pending_jobs.end() || rest_cannot_start(leaf))
      order.deactivate(queues_, leaf);
  }
}

// ------------------------------------------------------------------ skipping what cannot start

void SchedulerCore::note_passed(QueueIndex leaf, ShapeClassId shape) {
  if (shape == kIndividualShape) {
    if (pass_.individual_left[leaf] > 0) --pass_.individual_left[leaf];
  } else if (shape < pass_.shape_left.size() && pass_.shape_left[shape] > 0) {
    --pass_.shape_left[shape];
  }
}

// A job queued during a pass (a victim sent back): a class it made, or whose
// id it reuses, starts with no pass state; the job counts among those the
// cursor has not passed if its queue is being served and it sorts after the
// cursor (one the loop then steps over is counted too: skipping stays safe).
void SchedulerCore::note_enqueued_in_pass(const Job& job, const PendingKey& key) {
  const ShapeClassId shape = job.shape_class;
  if (shape != kIndividualShape) {
    pass_.fit_shapes(pending_shapes_.id_limit());
    if (pending_shapes_.shape(shape).pending == 1) pass_.reset_shape(shape);
  }
  const QueueIndex q = job.queue;
  if (!pass_.order.active(q) || !(*pass_.order.cursor(q) < key)) return;
  if (shape == kIndividualShape)
    ++pass_.individual_left[q];
  else
    ++pass_.shape_left[shape];
}

// Every job left behind the queue's cursor would fail in attempt() and change
// nothing but its pending reason: no reservation try is left in the pass, and
// each of their classes is blocked by queue limits, or covered by a failed
// shape with no eviction search allowed. The full pass would visit them only
// to find that; the decisions are the same without (tests/core/
// incremental_pass_test.cpp compares both).
bool SchedulerCore::rest_cannot_start(QueueIndex leaf) {
  if (!options_.skip_failing_shapes || pass_.individual_left[leaf] > 0 ||
      pass_.blocked_tries < options_.reservations)
    return false;
  for (ShapeClassId shape : pending_shapes_.classes_of(leaf))
    if (pass_.shape_left[shape] > 0 && !shape_cannot_start(shape)) return false;
  note_skipped_reasons(leaf);
  return true;
}

// What attempt() would have given each job of the skipped classes.
void SchedulerCore::note_skipped_reasons(QueueIndex leaf) {
  for (ShapeClassId shape : pending_shapes_.classes_of(leaf)) {
    if (pass_.shape_left[shape] == 0) continue;
    const Job& prototype = pending_shapes_.shape(shape).prototype;
    std::optional<PendingReason> reason = queue_limits_block(prototype);
    if (!reason)
      reason = pass_.failures.covering(prototype, &policy_for(prototype),
                                       end_if_started(prototype, pass_.now));
    if (reason) pending_shapes_.note_skipped(shape, *reason, passes_);
  }
}

// As attempt() would find for each job of the class.
bool SchedulerCore::shape_cannot_start(ShapeClassId shape) {
  const Job& prototype = pending_shapes_.shape(shape).prototype;
  if (queue_limits_block(prototype)) return true;
  FailureMemo& failures = pass_.failures;
  const bool covered = failures.known_covered(shape) ||
                       failures.covers_shape(shape, prototype, &policy_for(prototype),
                                             end_if_started(prototype, pass_.now));
  return covered && !eviction_search_for(prototype).allowed;
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
  return placed;
}

// The first options_.reservations jobs of the queue order that could not
// start get a reservation when a plan exists, unless only their queue's
// limits stop them (capacity freeing up would not help). Tries count, planned
// or not: a pass where nothing has a time limit costs one try, not one per
// blocked job.
bool SchedulerCore::reserve_blocked(PassSession& session, JobId id) {
  const Job& job = jobs_[id];
  if (pass_.blocked_tries >= options_.reservations || backfill_.reserved(id) ||
      job.reason.kind == PendingReason::Kind::kQueueAtCapability ||
      job.reason.kind == PendingReason::Kind::kGuaranteedToOthers)
    return false;
  ++pass_.blocked_tries;
  return backfill_.reserve(session, id);
}

// Capability of the queue and its ancestors, then the guarantees other queues
// do not use: a job may not start on resources promised elsewhere. Returns
// why the job may not start, if so.
std::optional<PendingReason> SchedulerCore::queue_limits_block(const Job& job) const {
  QueueIndex capped = 0;
  ResourceId resource = 0;
  if (!queues_.within_capability(job.queue, job.minimum, capped, resource)) {
    PendingReason reason{PendingReason::Kind::kQueueAtCapability};
    reason.queue = capped;
    reason.resource = resource;
    reason.needed = queues_.node(capped).allocated.get(resource) + job.minimum.get(resource);
    reason.available = queues_.node(capped).spec.capability.value.get(resource);
    return reason;
  }
  const ResourceVector usable = pass_.pool_free - queues_.unused_guarantees_of_others(job.queue);
  if (!job.minimum.fits_in(usable)) {
    // Only a shortage caused by guarantees is reported here; a plain lack of
    // capacity is found, with per-cluster detail, by try_place.
    if (!job.minimum.fits_in(pass_.pool_free)) return std::nullopt;
    PendingReason reason{PendingReason::Kind::kGuaranteedToOthers};
    job.minimum.first_excess(usable, reason.resource);
    reason.needed = job.minimum.get(reason.resource);
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
