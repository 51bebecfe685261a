// Backfill (EASY, and conservative with more than one reservation): planning
// a blocked job's start from running jobs' time limits, and keeping the nodes
// it needs then from jobs that would still be running. See reservation.hpp.
#include <algorithm>

#include "hub/scheduler.hpp"

namespace gantry::hub {

// ------------------------------------------------------------------ planning

// The earliest time, no later than `horizon`, at which the gang fits on the
// cluster once every dispatch there has ended by its time limit; kNever when
// none. Earlier reservations' claims on those ends are not planned on. Leaves
// the cluster as it found it; with `fill`, records the plan's nodes in it.
TimeMs SchedulerCore::plan_start_on(ClusterIndex c, JobId id, TimeMs horizon, Reservation* fill) {
  ClusterState& cluster = clusters_[c];
  const Job& job = jobs_[id];
  const PlacementPolicy& policy = policy_for(job);
  load_claims(c);
  pass_.released.clear();
  TimeMs found = kNever;
  // A gang of several replicas takes the nodes that drain first, idle ones
  // first: what its reservation holds already stays in its plan.
  const ReplicaTiming timing{ReplicaTiming::kNoPlannedEnd, job.gang.total_replicas() > 1};
  const auto fits = [&] {
    return job.minimum.fits_in(cluster.total_free()) &&
           placer_.place(cluster, job.gang, pass_.plan, id, &policy, timing).fits;
  };
  if (give_unreported_ends(cluster, c) && pass_.now <= horizon && fits()) found = pass_.now;
  const auto& ends = ends_on_[c];
  auto it = ends.begin();
  auto reserved_end = pass_.reservation_ends.begin();
  while (found == kNever && (it != ends.end() || reserved_end != pass_.reservation_ends.end())) {
    const TimeMs next_end = it != ends.end() ? std::max(it->first, pass_.now) : kNever;
    const TimeMs next_reserved =
        reserved_end != pass_.reservation_ends.end() ? reserved_end->first : kNever;
    const TimeMs at = std::min(next_end, next_reserved);
    if (at > horizon) break;
    for (; it != ends.end() && std::max(it->first, pass_.now) == at; ++it)
      give_planned_release(cluster, c, it->second);
    for (; reserved_end != pass_.reservation_ends.end() && reserved_end->first == at;
         ++reserved_end)
      give_reserved_end(cluster, pass_.reservations[reserved_end->second]);
    if (fits()) found = at;
  }
  if (found != kNever) {
    if (fill != nullptr) fill_reserved_nodes(*fill);
    release(cluster, pass_.plan);
  }
  for (const auto& [node, amount] : pass_.released) cluster.take(node, amount);
  for (NodeIndex node : pass_.claim_nodes) pass_.claim_left[node] = ResourceVector{};
  pass_.claim_nodes.clear();
  return found;
}

// What reservations already made on the cluster expect from running jobs'
// ends, and when those with a time limit give everything back.
void SchedulerCore::load_claims(ClusterIndex c) {
  if (pass_.claim_left.size() < clusters_[c].node_count())
    pass_.claim_left.resize(clusters_[c].node_count());
  pass_.reservation_ends.clear();
  for (std::size_t r = 0; r < pass_.reservations.size(); ++r) {
    const Reservation& reservation = pass_.reservations[r];
    if (reservation.cluster != c) continue;
    for (const ReservedNode& reserved : reservation.nodes) {
      pass_.claim_left[reserved.node] += reserved.planned - reserved.held;
      pass_.claim_nodes.push_back(reserved.node);
    }
    const TimeMs end = expected_end(jobs_[reservation.job], reservation.start);
    if (end != kNever) pass_.reservation_ends.emplace_back(end, r);
  }
  std::sort(pass_.reservation_ends.begin(), pass_.reservation_ends.end());
}

// A reserved job ends by its limit: what it was planned to take comes back.
void SchedulerCore::give_reserved_end(ClusterState& cluster, const Reservation& reservation) {
  for (const ReservedNode& reserved : reservation.nodes) {
    cluster.give(reserved.node, reserved.planned);
    pass_.released.emplace_back(reserved.node, reserved.planned);
  }
}

// The dispatch's part on the cluster ends: its resources come back, less what
// earlier reservations claim.
void SchedulerCore::give_planned_release(ClusterState& cluster, ClusterIndex c, DispatchId id) {
  const DispatchPart* part = dispatches_.at(id).part_on(c);
  // A part its agent's report left out is already free on the nodes.
  if (part == nullptr || part->state == PartState::kEnded || part->left_report) return;
  give_unclaimed(cluster, part->assignment);
}

// Parts that ended in the hub but that the nodes still count (no report since)
// end now. True when there were any.
bool SchedulerCore::give_unreported_ends(ClusterState& cluster, ClusterIndex c) {
  for (const EndedUnreported& ended : ended_unreported_[c])
    give_unclaimed(cluster, ended.assignment);
  return !ended_unreported_[c].empty();
}

// What an end frees on each node, less what earlier reservations claim there.
void SchedulerCore::give_unclaimed(ClusterState& cluster,
                                   const std::vector<NodeAssignment>& assignment) {
  for (const NodeAssignment& entry : assignment) {
    if (entry.node >= cluster.node_count()) continue;  // the nodes changed since
    ResourceVector amount = entry.amount;
    ResourceVector& claim = pass_.claim_left[entry.node];  // sized by load_claims
    const ResourceVector used = amount.min_with(claim);
    claim -= used;
    amount -= used;
    if (amount.is_zero()) continue;
    cluster.give(entry.node, amount);
    pass_.released.emplace_back(entry.node, amount);
  }
}

// The plan's nodes (pass_.plan), with what the released ends free on each.
void SchedulerCore::fill_reserved_nodes(Reservation& reservation) {
  reservation.nodes.clear();
  for (const NodeAssignment& entry : pass_.plan) {
    auto it = std::find_if(reservation.nodes.begin(), reservation.nodes.end(),
                           [&](const ReservedNode& n) { return n.node == entry.node; });
    if (it == reservation.nodes.end())
      it = reservation.nodes.insert(reservation.nodes.end(), ReservedNode{entry.node, {}, {}, {}});
    it->planned += entry.amount;
  }
  for (ReservedNode& reserved : reservation.nodes) {
    reserved.raw = reserved.planned;
    for (const auto& [node, amount] : pass_.released)
      if (node == reserved.node) reserved.raw -= amount;
    reserved.held = reserved.raw.max_with(ResourceVector{});
  }
}

// Whether a plan for the job on the cluster may exist: it may use it, could
// ever fit there, and something there is planned to end.
bool SchedulerCore::plannable_on(ClusterIndex c, const Job& job) const {
  const ClusterState& cluster = clusters_[c];
  return PlacementPolicy::eligible(cluster, c, job) && !backed_off(job, c, pass_.now) &&
         job.minimum.fits_in(cluster.total_allocatable()) &&
         !(ends_on_[c].empty() && ended_unreported_[c].empty());
}

// Plans the job's start and holds what it needs then from jobs that would
// still run. A job reserved in the last pass stays on that pass's cluster while
// a plan there exists: moving would give up what it holds there, and plans
// made from expected runtimes move between clusters as runs end early or
// late. Otherwise the cluster where the start is earliest (the lower index on
// a tie). False when no cluster's planned ends free enough for it.
bool SchedulerCore::reserve(JobId id) {
  const Job& job = jobs_[id];
  TimeMs best = kNever;
  ClusterIndex chosen = kNoCluster;
  if (const PlannedStart* last = planned_start(job);
      last != nullptr && last->cluster < clusters_.size() && plannable_on(last->cluster, job)) {
    best = plan_start_on(last->cluster, id, kNever, nullptr);
    if (best != kNever) chosen = last->cluster;
  }
  const bool kept = chosen != kNoCluster;
  for (ClusterIndex c = 0; !kept && c < clusters_.size(); ++c) {
    if (!plannable_on(c, job)) continue;
    const TimeMs start = plan_start_on(c, id, best == kNever ? kNever : best - 1, nullptr);
    if (start < best) {
      best = start;
      chosen = c;
    }
  }
  if (chosen == kNoCluster) return false;
  Reservation& reservation = pass_.reservations.emplace_back();
  reservation.job = id;
  reservation.cluster = chosen;
  reservation.start = best;
  plan_start_on(chosen, id, best, &reservation);
  for (const ReservedNode& reserved : reservation.nodes)
    clusters_[chosen].take(reserved.node, reserved.held);
  return true;
}

bool SchedulerCore::reserved_in_pass(JobId id) const {
  return std::any_of(pass_.reservations.begin(), pass_.reservations.end(),
                     [id](const Reservation& r) { return r.job == id; });
}

// ------------------------------------------------------------------ placing around reservations

TimeMs SchedulerCore::end_if_started(const Job& job) const {
  return job.time_limit_ms > 0 ? pass_.now + job.time_limit_ms : kNever;
}

// A job that ends by a reservation's start may use what it holds, and so may
// the reserved job itself.
void SchedulerCore::lend_holds(JobId id, TimeMs end) {
  for (Reservation& reservation : pass_.reservations) {
    if (end > reservation.start && reservation.job != id) continue;
    ClusterState& cluster = clusters_[reservation.cluster];
    for (const ReservedNode& reserved : reservation.nodes)
      cluster.give(reserved.node, reserved.held);
    reservation.lent = true;
  }
}

// Takes lent holds back. What the placed job (it ends before the start) took
// on a reserved node is back by then, so the hold shrinks by that much.
void SchedulerCore::settle_holds(DispatchId placed) {
  if (pass_.reservations.empty()) return;  // the common case: one branch per decision
  const Dispatch* dispatch = placed != 0 ? find_dispatch(placed) : nullptr;
  for (Reservation& reservation : pass_.reservations) {
    if (!reservation.lent) continue;
    reservation.lent = false;
    ClusterState& cluster = clusters_[reservation.cluster];
    const DispatchPart* part = dispatch ? dispatch->part_on(reservation.cluster) : nullptr;
    for (ReservedNode& reserved : reservation.nodes) {
      if (part != nullptr)
        for (const NodeAssignment& entry : part->assignment)
          if (entry.node == reserved.node) reserved.raw -= entry.amount;
      reserved.held = reserved.raw.max_with(ResourceVector{});
      cluster.take(reserved.node, reserved.held);
    }
  }
}

// An evicted dispatch freed its resources now. A reservation that counted on
// them at its planned end must now hold them instead.
void SchedulerCore::release_seen_by_reservations(const std::vector<DispatchPart>& parts,
                                                 TimeMs planned_end) {
  for (Reservation& reservation : pass_.reservations) {
    if (planned_end > reservation.start) continue;
    for (const DispatchPart& part : parts) {
      if (part.cluster != reservation.cluster) continue;
      for (ReservedNode& reserved : reservation.nodes)
        for (const NodeAssignment& entry : part.assignment) {
          if (entry.node != reserved.node) continue;
          reserved.raw += entry.amount;
          const ResourceVector held = reserved.raw.max_with(ResourceVector{});
          if (!reservation.lent) clusters_[part.cluster].take(reserved.node, held - reserved.held);
          reserved.held = held;
        }
    }
  }
}

// ------------------------------------------------------------------ between passes

// Gives every hold back (between passes, nodes show what is really free) and
// records each reserved job's planned start for describe.
void SchedulerCore::end_pass() {
  for (const Reservation& reservation : pass_.reservations)
    for (const ReservedNode& reserved : reservation.nodes)
      clusters_[reservation.cluster].give(reserved.node, reserved.held);
  note_planned_starts();
}

void SchedulerCore::note_planned_starts() {
  for (JobId id : reserved_last_pass_)
    if (jobs_[id].placement_notes) jobs_[id].placement_notes->planned = PlannedStart{};
  reserved_last_pass_.clear();
  for (const Reservation& reservation : pass_.reservations) {
    PlannedStart& planned = jobs_[reservation.job].notes().planned;
    planned.start = reservation.start;
    planned.cluster = reservation.cluster;
    planned.report_generation = clusters_[reservation.cluster].report_generation();
    planned.nodes.clear();
    for (const ReservedNode& reserved : reservation.nodes) planned.nodes.push_back(reserved.node);
    reserved_last_pass_.push_back(reservation.job);
  }
}

const PlannedStart* SchedulerCore::planned_start(const Job& job) const {
  if (!job.placement_notes || job.placement_notes->planned.start == kNever) return nullptr;
  return &job.placement_notes->planned;
}

}  // namespace gantry::hub
