// What the hub keeps about each job beside the scheduling core: its store
// row, its events (what describe job shows), and how long the job object
// lives (hub::JobRetention: delete, ttlSecondsAfterFinished, --keep-finished,
// and its release to the store once its end is committed there).
//
// Pure like the core: every input takes `now`. When jobs are forgotten their
// events go, and their store rows are handed back for the caller to have the
// store forget (a restart must not bring them back).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "actors/job_events.hpp"
#include "hub/job_retention.hpp"
#include "hub/reconciler.hpp"
#include "protocol/messages.hpp"

namespace gantry::actors {

// Store rows of forgotten jobs.
using ForgottenRows = std::vector<std::int64_t>;

class JobObjects {
 public:
  // `keep_finished_ms`: --keep-finished (-1: no limit). `stop_grace_ms`: how
  // long a deleted job waits for its parts to report their stop.
  JobObjects(hub::SchedulerCore& core, hub::TimeMs keep_finished_ms, hub::TimeMs stop_grace_ms)
      : core_(core),
        retention_(core, keep_finished_ms),
        stop_grace_ms_(stop_grace_ms),
        events_(core) {}

  // The core took the job, stored at `row` (0: not stored).
  void accepted(hub::JobId id, std::int64_t row, hub::TimeMs submitted);
  // Each job's store row by JobId (0: not stored).
  const std::vector<std::int64_t>& rows() const { return rows_; }
  std::int64_t row(hub::JobId id) const { return id < rows_.size() ? rows_[id] : 0; }
  JobEvents& events() { return events_; }
  const JobEvents& events() const { return events_; }

  // The job ended: its ttl counts from its end.
  void ended(const hub::JobEnd& end, hub::TimeMs now, ForgottenRows& forgotten);
  // Its end, stored at `row`, is committed: the store keeps the job from now
  // on and the core forgets it (unless it was deleted meanwhile).
  void end_stored(hub::JobId id, std::int64_t row);

  // Deletes the job (the caller cancels one that has not ended): forgotten
  // now when nothing of it may run, else once its committed parts stopped.
  // True when forgotten now.
  bool remove(hub::JobId id, hub::TimeMs now, ForgottenRows& forgotten);
  // The agent on `cluster` reported a stop of `dispatch` (any end).
  void part_stopped(hub::DispatchId dispatch, const std::string& cluster, hub::TimeMs now,
                    ForgottenRows& forgotten);
  // A reconnecting agent that no longer lists a deleted job's part stopped it.
  void parts_listed(const protocol::Hello& hello, hub::TimeMs now, ForgottenRows& forgotten);
  // The cluster was lost: what it ran counts as stopped.
  void cluster_gone(const std::string& cluster, hub::TimeMs now, ForgottenRows& forgotten);

  // Forgets the jobs whose ttl (or stop deadline) ran out by `now`.
  void expire(hub::TimeMs now, ForgottenRows& forgotten);
  // The earliest expiry to come; hub::kNever when none.
  hub::TimeMs next_expiry() const { return retention_.next_expiry(); }

 private:
  std::vector<hub::ClusterIndex> committed_parts(hub::DispatchId id) const;
  void forget(const std::vector<hub::JobId>& jobs, ForgottenRows& forgotten);

  hub::SchedulerCore& core_;
  hub::JobRetention retention_;
  hub::TimeMs stop_grace_ms_;
  JobEvents events_;
  std::vector<std::int64_t> rows_;  // by JobId; 0 when not stored
};

// An end, or the agent's word that it stopped the run (after a Cancel).
bool is_stop(const std::string& phase);

}  // namespace gantry::actors
