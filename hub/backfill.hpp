// Backfill (EASY, and conservative with more than one reservation; as
// Slurm's sched/backfill): what running jobs are planned to free when, a
// pass's reservations made from it, and the holds that keep a reserved job's
// nodes from jobs that would still run at its planned start. The arithmetic
// of a hold is in reservation.hpp.
//
// SchedulerCore owns one Backfill: the planned ends it keeps between passes
// follow the dispatches (planned_ends.cpp, scheduler.cpp); the reservations
// live from a pass's begin_pass to its end_pass. Plans are made through the
// pass's session (pass_session.hpp), which is all they read.
#pragma once

#include <cstddef>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "hub/cluster_state.hpp"
#include "hub/dispatch.hpp"
#include "hub/job.hpp"
#include "hub/reservation.hpp"
#include "hub/resources.hpp"

namespace gantry::hub {

class PassSession;

// The latest the job ends if it starts at `now` (a pass placing it, or its run
// starting): by its time limit; kNever without one.
inline TimeMs end_if_started(const Job& job, TimeMs now) {
  return job.time_limit_ms > 0 ? now + job.time_limit_ms : kNever;
}

// Where the job would start, when the last pass reserved its place;
// nullptr when it has no reservation.
const PlannedStart* planned_start(const Job& job);

class Backfill {
 public:
  // ---- what plans are made from, kept between passes
  void add_cluster();
  // The run `id`, with a part on cluster c, is planned to end at `to` instead
  // of `from` (kNever: no planned end).
  void move_end(ClusterIndex c, DispatchId id, TimeMs from, TimeMs to);
  // Runs with a planned end on the cluster, soonest first.
  const std::set<std::pair<TimeMs, DispatchId>>& ends_on(ClusterIndex c) const {
    return ends_on_[c];
  }
  // A part that ended in the hub while the cluster's last report still
  // counted it: its nodes free it only with the next report, so plans take
  // it as ending now (not seeing it at all would leave a reserved job
  // without a plan, and its nodes unheld, until that report).
  void note_ended_unreported(ClusterIndex c, DispatchId id,
                             const std::vector<NodeAssignment>& assignment);
  // A report counting only `counted` (sorted): the others' nodes show them free now.
  void forget_reported_ends(ClusterIndex c, const std::vector<DispatchId>& counted);

  // ---- one pass's reservations
  void begin_pass() { reservations_.clear(); }
  bool holding() const { return !reservations_.empty(); }
  bool reserved(JobId id) const;
  // Plans the job's start from the planned ends and holds what it needs then
  // from jobs that would still run. False when no cluster's plan frees
  // enough for it.
  bool reserve(PassSession& session, JobId id);
  // Records a planned reservation and takes its holds out of its cluster's nodes.
  void hold(std::span<ClusterState> clusters, Reservation reservation);
  // Around one job's placement: a job that ends by `end` (end_if_started)
  // may use the holds of reservations starting no earlier, and the reserved
  // job its own; settle_holds takes them back, shrunk by what `placed` (its
  // dispatch, or nullptr) took on a reserved node, back by the start.
  void lend_holds(std::span<ClusterState> clusters, JobId id, TimeMs end);
  void settle_holds(std::span<ClusterState> clusters, const Dispatch* placed);
  // An evicted dispatch's `parts` freed their nodes now: a reservation that
  // counted on them at its planned end (no later than its start) holds them.
  void release_seen(std::span<ClusterState> clusters, const std::vector<DispatchPart>& parts,
                    TimeMs planned_end);
  // Gives every hold back (between passes nodes show what is really free)
  // and records each reserved job's planned start for describe.
  void end_pass(std::span<ClusterState> clusters, std::span<Job> jobs);

 private:
  bool plannable_on(PassSession& session, ClusterIndex c, const Job& job) const;
  TimeMs plan_start_on(PassSession& session, ClusterIndex c, JobId id, TimeMs horizon,
                       Reservation* fill);
  void load_claims(PassSession& session, ClusterIndex c);
  void give_reserved_end(ClusterState& cluster, const Reservation& reservation);
  void give_planned_release(PassSession& session, ClusterState& cluster, ClusterIndex c,
                            DispatchId id);
  bool give_unreported_ends(ClusterState& cluster, ClusterIndex c);
  void give_unclaimed(ClusterState& cluster, const std::vector<NodeAssignment>& assignment);
  void fill_reserved_nodes(Reservation& reservation) const;
  void note_planned_starts(std::span<ClusterState> clusters, std::span<Job> jobs);

  // Per cluster: runs with a time limit by planned end, and parts ended unreported.
  std::vector<std::set<std::pair<TimeMs, DispatchId>>> ends_on_;
  std::vector<std::vector<EndedUnreported>> ended_unreported_;
  std::vector<JobId> reserved_last_pass_;  // whose PlacementNotes::planned is set
  // This pass's reservations in the order they were made; their holds are
  // taken out of the nodes until end_pass.
  std::vector<Reservation> reservations_;
  // Planning scratch: resources given back while walking planned ends, what
  // earlier reservations still claim per node, the planned job's nodes.
  std::vector<std::pair<NodeIndex, ResourceVector>> released_;
  std::vector<ResourceVector> claim_left_;
  std::vector<NodeIndex> claim_nodes_;
  std::vector<std::pair<TimeMs, std::size_t>> reservation_ends_;  // (end, index in reservations_)
  std::vector<NodeAssignment> plan_;
};

}  // namespace gantry::hub
