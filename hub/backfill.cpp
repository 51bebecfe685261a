// Backfill (backfill.hpp): planning a blocked job's start from running jobs'
// planned ends, and keeping the nodes it needs then from jobs that would
// still be running. See reservation.hpp.
#include "hub/backfill.hpp"

#include <algorithm>

#include "hub/cluster_filters.hpp"
#include "hub/pass_session.hpp"
#include "hub/placement_policy.hpp"

namespace gantry::hub {

// ------------------------------------------------------------------ planned ends

void Backfill::add_cluster() {
  ends_on_.emplace_back();
  ended_unreported_.emplace_back();
}

void Backfill::move_end(ClusterIndex c, DispatchId id, TimeMs from, TimeMs to) {
  if (from != kNever) ends_on_[c].erase({from, id});
  if (to != kNever) ends_on_[c].insert({to, id});
}

void Backfill::note_ended_unreported(ClusterIndex c, DispatchId id,
                                     const std::vector<NodeAssignment>& assignment) {
  ended_unreported_[c].push_back({id, assignment});
}

void Backfill::forget_reported_ends(ClusterIndex c, const std::vector<DispatchId>& counted) {
  std::erase_if(ended_unreported_[c], [&](const EndedUnreported& each) {
    return !std::binary_search(counted.begin(), counted.end(), each.dispatch);
  });
}

// ------------------------------------------------------------------ planning

// The earliest time, no later than `horizon`, at which the gang fits on the
// cluster once every dispatch there has ended by its time limit; kNever when
// none. Earlier reservations' claims on those ends are not planned on. Leaves
// the cluster as it found it; with `fill`, records the plan's nodes in it.
TimeMs Backfill::plan_start_on(PassSession& session, ClusterIndex c, JobId id, TimeMs horizon,
                               Reservation* fill) {
  ClusterState& cluster = session.clusters()[c];
  const Job& job = session.job(id);
  const PlacementPolicy& policy = session.policy_for(job);
  const TimeMs now = session.now();
  load_claims(session, c);
  released_.clear();
  TimeMs found = kNever;
  // A gang of several replicas takes the nodes that drain first, idle ones
  // first: what its reservation holds already stays in its plan.
  const ReplicaTiming timing{ReplicaTiming::kNoPlannedEnd, job.gang.total_replicas() > 1};
  const auto fits = [&] {
    return job.minimum().fits_in(cluster.total_free()) &&
           session.fit(cluster, job.gang, id, policy, timing, plan_);
  };
  if (give_unreported_ends(cluster, c) && now <= horizon && fits()) found = now;
  const auto& ends = ends_on_[c];
  auto it = ends.begin();
  auto reserved_end = reservation_ends_.begin();
  while (found == kNever && (it != ends.end() || reserved_end != reservation_ends_.end())) {
    const TimeMs next_end = it != ends.end() ? std::max(it->first, now) : kNever;
    const TimeMs next_reserved =
        reserved_end != reservation_ends_.end() ? reserved_end->first : kNever;
    const TimeMs at = std::min(next_end, next_reserved);
    if (at > horizon) break;
    for (; it != ends.end() && std::max(it->first, now) == at; ++it)
      give_planned_release(session, cluster, c, it->second);
    for (; reserved_end != reservation_ends_.end() && reserved_end->first == at; ++reserved_end)
      give_reserved_end(cluster, reservations_[reserved_end->second]);
    if (fits()) found = at;
  }
  if (found != kNever) {
    if (fill != nullptr) fill_reserved_nodes(*fill);
    release(cluster, plan_);
  }
  for (const auto& [node, amount] : released_) cluster.take(node, amount);
  for (NodeIndex node : claim_nodes_) claim_left_[node] = ResourceVector{};
  claim_nodes_.clear();
  return found;
}

// What reservations already made on the cluster expect from running jobs'
// ends, and when those with a time limit give everything back.
void Backfill::load_claims(PassSession& session, ClusterIndex c) {
  const std::size_t node_count = session.clusters()[c].node_count();
  if (claim_left_.size() < node_count) claim_left_.resize(node_count);
  reservation_ends_.clear();
  for (std::size_t r = 0; r < reservations_.size(); ++r) {
    const Reservation& reservation = reservations_[r];
    if (reservation.cluster != c) continue;
    for (const ReservedNode& reserved : reservation.nodes) {
      claim_left_[reserved.node] += reserved.planned - reserved.held;
      claim_nodes_.push_back(reserved.node);
    }
    const TimeMs end = session.expected_end(session.job(reservation.job), reservation.start);
    if (end != kNever) reservation_ends_.emplace_back(end, r);
  }
  std::sort(reservation_ends_.begin(), reservation_ends_.end());
}

// A reserved job ends by its limit: what it was planned to take comes back.
void Backfill::give_reserved_end(ClusterState& cluster, const Reservation& reservation) {
  for (const ReservedNode& reserved : reservation.nodes) {
    cluster.give(reserved.node, reserved.planned);
    released_.emplace_back(reserved.node, reserved.planned);
  }
}

// The dispatch's part on the cluster ends: its resources come back, less what
// earlier reservations claim.
void Backfill::give_planned_release(PassSession& session, ClusterState& cluster, ClusterIndex c,
                                    DispatchId id) {
  const DispatchPart* part = session.dispatch(id).part_on(c);
  // A part its agent's report left out is already free on the nodes.
  if (part == nullptr || part->state == PartState::kEnded || part->left_report) return;
  give_unclaimed(cluster, part->assignment);
}

// Parts that ended in the hub but that the nodes still count (no report since)
// end now. True when there were any.
bool Backfill::give_unreported_ends(ClusterState& cluster, ClusterIndex c) {
  for (const EndedUnreported& ended : ended_unreported_[c])
    give_unclaimed(cluster, ended.assignment);
  return !ended_unreported_[c].empty();
}

// What an end frees on each node, less what earlier reservations claim there.
void Backfill::give_unclaimed(ClusterState& cluster,
                              const std::vector<NodeAssignment>& assignment) {
  for (const NodeAssignment& entry : assignment) {
    if (entry.node >= cluster.node_count()) continue;  // the nodes changed since
    ResourceVector amount = entry.amount;
    ResourceVector& claim = claim_left_[entry.node];  // sized by load_claims
    const ResourceVector used = amount.min_with(claim);
    claim -= used;
    amount -= used;
    if (amount.is_zero()) continue;
    cluster.give(entry.node, amount);
    released_.emplace_back(entry.node, amount);
  }
}

// The plan's nodes (plan_), with what the released ends free on each.
void Backfill::fill_reserved_nodes(Reservation& reservation) const {
  reservation.nodes.clear();
  for (const NodeAssignment& entry : plan_) {
    auto it = std::find_if(reservation.nodes.begin(), reservation.nodes.end(),
                           [&](const ReservedNode& n) { return n.node == entry.node; });
    if (it == reservation.nodes.end())
      it = reservation.nodes.insert(reservation.nodes.end(), ReservedNode{entry.node, {}, {}, {}});
    it->planned += entry.amount;
  }
  for (ReservedNode& reserved : reservation.nodes) {
    reserved.raw = reserved.planned;
    for (const auto& [node, amount] : released_)
      if (node == reserved.node) reserved.raw -= amount;
    reserved.held = reserved.raw.max_with(ResourceVector{});
  }
}

// Whether a plan for the job on the cluster may exist: it may use it, could
// ever fit there, and something there is planned to end.
bool Backfill::plannable_on(PassSession& session, ClusterIndex c, const Job& job) const {
  const ClusterState& cluster = session.clusters()[c];
  return PlacementPolicy::eligible(cluster, c, job) && !backed_off(job, c, session.now()) &&
         job.minimum().fits_in(cluster.total_allocatable()) &&
         !(ends_on_[c].empty() && ended_unreported_[c].empty());
}

// A job reserved in the last pass stays on that pass's cluster while a plan
// there exists: moving would give up what it holds there, and plans made
// from expected runtimes move between clusters as runs end early or late.
// Otherwise the cluster where the start is earliest (the lower index on a
// tie).
bool Backfill::reserve(PassSession& session, JobId id) {
  const Job& job = session.job(id);
  const std::size_t cluster_count = session.clusters().size();
  TimeMs best = kNever;
  ClusterIndex chosen = kNoCluster;
  if (const PlannedStart* last = planned_start(job); last != nullptr &&
                                                     last->cluster < cluster_count &&
                                                     plannable_on(session, last->cluster, job)) {
    best = plan_start_on(session, last->cluster, id, kNever, nullptr);
    if (best != kNever) chosen = last->cluster;
  }
  const bool kept = chosen != kNoCluster;
  for (ClusterIndex c = 0; !kept && c < cluster_count; ++c) {
    if (!plannable_on(session, c, job)) continue;
    const TimeMs start = plan_start_on(session, c, id, best == kNever ? kNever : best - 1, nullptr);
    if (start < best) {
      best = start;
      chosen = c;
    }
  }
  if (chosen == kNoCluster) return false;
  Reservation reservation;
  reservation.job = id;
  reservation.cluster = chosen;
  reservation.start = best;
  plan_start_on(session, chosen, id, best, &reservation);
  hold(session.clusters(), std::move(reservation));
  return true;
}

void Backfill::hold(std::span<ClusterState> clusters, Reservation reservation) {
  for (const ReservedNode& reserved : reservation.nodes)
    clusters[reservation.cluster].take(reserved.node, reserved.held);
  reservations_.push_back(std::move(reservation));
}

bool Backfill::reserved(JobId id) const {
  return std::any_of(reservations_.begin(), reservations_.end(),
                     [id](const Reservation& r) { return r.job == id; });
}

// ------------------------------------------------------------------ placing around reservations

void Backfill::lend_holds(std::span<ClusterState> clusters, JobId id, TimeMs end) {
  for (Reservation& reservation : reservations_) {
    if (end > reservation.start && reservation.job != id) continue;
    ClusterState& cluster = clusters[reservation.cluster];
    for (const ReservedNode& reserved : reservation.nodes)
      cluster.give(reserved.node, reserved.held);
    reservation.lent = true;
  }
}

// What the placed job (it ends before the start) took on a reserved node is
// back by then, so the hold shrinks by that much.
void Backfill::settle_holds(std::span<ClusterState> clusters, const Dispatch* placed) {
  for (Reservation& reservation : reservations_) {
    if (!reservation.lent) continue;
    reservation.lent = false;
    ClusterState& cluster = clusters[reservation.cluster];
    const DispatchPart* part = placed ? placed->part_on(reservation.cluster) : nullptr;
    for (ReservedNode& reserved : reservation.nodes) {
      if (part != nullptr)
        for (const NodeAssignment& entry : part->assignment)
          if (entry.node == reserved.node) reserved.raw -= entry.amount;
      reserved.held = reserved.raw.max_with(ResourceVector{});
      cluster.take(reserved.node, reserved.held);
    }
  }
}

void Backfill::release_seen(std::span<ClusterState> clusters,
                            const std::vector<DispatchPart>& parts, TimeMs planned_end) {
  for (Reservation& reservation : reservations_) {
    if (planned_end > reservation.start) continue;
    for (const DispatchPart& part : parts) {
      if (part.cluster != reservation.cluster) continue;
      for (ReservedNode& reserved : reservation.nodes)
        for (const NodeAssignment& entry : part.assignment) {
          if (entry.node != reserved.node) continue;
          reserved.raw += entry.amount;
          const ResourceVector held = reserved.raw.max_with(ResourceVector{});
          if (!reservation.lent) clusters[part.cluster].take(reserved.node, held - reserved.held);
          reserved.held = held;
        }
    }
  }
}

// ------------------------------------------------------------------ between passes

void Backfill::end_pass(std::span<ClusterState> clusters, std::span<Job> jobs) {
  for (const Reservation& reservation : reservations_)
    for (const ReservedNode& reserved : reservation.nodes)
      clusters[reservation.cluster].give(reserved.node, reserved.held);
  note_planned_starts(clusters, jobs);
}

void Backfill::note_planned_starts(std::span<ClusterState> clusters, std::span<Job> jobs) {
  for (JobId id : reserved_last_pass_)
    if (jobs[id].placement_notes) jobs[id].placement_notes->planned = PlannedStart{};
  reserved_last_pass_.clear();
  for (const Reservation& reservation : reservations_) {
    PlannedStart& planned = jobs[reservation.job].notes().planned;
    planned.start = reservation.start;
    planned.cluster = reservation.cluster;
    planned.report_generation = clusters[reservation.cluster].report_generation();
    planned.nodes.clear();
    for (const ReservedNode& reserved : reservation.nodes) planned.nodes.push_back(reserved.node);
    reserved_last_pass_.push_back(reservation.job);
  }
}

const PlannedStart* planned_start(const Job& job) {
  if (!job.placement_notes || job.placement_notes->planned.start == kNever) return nullptr;
  return &job.placement_notes->planned;
}

}  // namespace gantry::hub
