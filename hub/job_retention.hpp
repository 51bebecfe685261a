// How long job objects live: the names the hub makes from
// metadata.generateName, and when a job is forgotten: deleted by a user
// (`gantryctl delete job`, like `kubectl delete vcjob`) or its
// spec.ttlSecondsAfterFinished running out (Volcano's garbage collector).
// A forgotten job is gone from get / describe and its name is free again.
//
// Pure and deterministic like SchedulerCore: every input takes `now`, and
// the jobs it forgets are handed back so the caller can drop what it keeps
// about them (store rows, events).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hub/scheduler.hpp"

namespace gantry::hub {

// Kubernetes' generateName shape: the prefix, at most 58 characters, then 5
// characters so the name fits 63.
inline constexpr std::size_t kGeneratedSuffixLength = 5;
inline constexpr std::size_t kMaxGenerateNamePrefix = 58;

// The `attempt`-th candidate name for `prefix`. `seed` carries the hub's
// epoch, so two hub starts on one state make different names; the same
// inputs always give the same name (no clock, no random device). The suffix
// uses Kubernetes' alphabet (lowercase consonants and digits, no vowels, so
// no word is spelled by chance).
std::string generated_name(std::string_view prefix, std::uint64_t seed, std::uint64_t attempt);

class JobRetention {
 public:
  // `keep_finished_ms`: an ended job is forgotten that long after its end at
  // the latest, whatever its ttl (the hub's --keep-finished); -1: no limit.
  explicit JobRetention(SchedulerCore& core, TimeMs keep_finished_ms = -1)
      : core_(core), keep_finished_ms_(keep_finished_ms) {}

  // The job ended at `at`: its ttl starts counting from there (a ttl of 0
  // forgets it now). A deleted job whose parts have all stopped is forgotten.
  void finished(JobId id, TimeMs at, TimeMs now, std::vector<JobId>& forgotten);

  // Deletes the job. The caller has already cancelled one that had not ended
  // and passes the clusters where its last dispatch may still run (committed
  // parts that had not ended). With none, the job is forgotten now; else
  // once every one of them stopped (part_stopped, cluster_gone), at the
  // latest at `stop_deadline`, so the name is not taken by a new job while
  // the old replicas still run under it.
  void remove(JobId id, DispatchId dispatch, const std::vector<ClusterIndex>& running, TimeMs now,
              TimeMs stop_deadline, std::vector<JobId>& forgotten);
  // The part of `dispatch` on `cluster` stopped (its agent reported an end,
  // or no longer lists it).
  void part_stopped(DispatchId dispatch, ClusterIndex cluster, TimeMs now,
                    std::vector<JobId>& forgotten);
  // Every awaited part on the cluster stopped (the cluster was lost; its
  // agent, if it returns, is told to stop what it still runs).
  void cluster_gone(ClusterIndex cluster, TimeMs now, std::vector<JobId>& forgotten);
  // The dispatches awaiting their stop that have a part on `cluster`.
  std::vector<DispatchId> stopping_on(ClusterIndex cluster) const;

  // The ended job is kept elsewhere from now on (the hub's store, which
  // lists it and expires it): the core forgets it, and nothing here waits
  // for it. False, changing nothing, when it has not ended, is forgotten
  // already or is being deleted.
  bool release(JobId id);

  // Forgets every job whose ttl (or stop deadline) is at or before `now`.
  void expire(TimeMs now, std::vector<JobId>& forgotten);
  // The earliest expiry still to come; kNever when none.
  TimeMs next_expiry() const;
  // When the job is to be forgotten; kNever when it is not scheduled.
  TimeMs expiry_of(JobId id) const;

 private:
  struct Stopping {
    JobId job = 0;
    std::vector<ClusterIndex> clusters;  // parts not yet reported stopped
  };

  void schedule(JobId id, TimeMs at);
  void unschedule(JobId id);
  void forget_if_done(JobId id, std::vector<JobId>& forgotten);
  void forget(JobId id, std::vector<JobId>& forgotten);

  SchedulerCore& core_;
  TimeMs keep_finished_ms_ = -1;
  // Expiries in time order: a wake-up looks at the first only.
  std::set<std::pair<TimeMs, JobId>> expiries_;
  std::unordered_map<JobId, TimeMs> expiry_by_job_;
  // Deleted jobs not forgotten yet, with the dispatch whose parts they wait
  // for (0: only for their end).
  std::map<JobId, DispatchId> deleting_;
  std::map<DispatchId, Stopping> stopping_;  // by dispatch, in id order
};

}  // namespace gantry::hub
