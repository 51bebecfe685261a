// What a scheduling pass learned from the gangs that found no place. Capacity
// only shrinks during a pass (until an eviction frees some), so a job that
// asks at least as much as a failed one, with the same task layout, cluster
// choice and node order, and that would end no earlier, cannot fit either.
// The pass answers such jobs from here instead of trying every cluster again
// (tests/core/incremental_pass_test.cpp compares with the full pass).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "hub/job.hpp"
#include "hub/pending_shapes.hpp"
#include "hub/placement_policy.hpp"

namespace gantry::hub {

// A gang that found no place in this pass.
struct FailedShape {
  const Job* job;
  const PlacementPolicy* policy;  // its node order decides fits too
  PendingReason reason;
  // When it would have ended (kNever: no limit). A job ending no earlier may
  // use no more reservation holds than it could.
  TimeMs end;

  // `other`, placed by `by` and ending at `other_end`, cannot fit either.
  bool covers(const Job& other, const PlacementPolicy* by, TimeMs other_end) const {
    return by == policy && other_end >= end && dominates(other, *job);
  }
};

class FailureMemo {
 public:
  // At most this many failures are kept: comparing costs more than it saves
  // beyond.
  static constexpr std::size_t kMaxFailures = 32;

  // A new pass at `now` over shape classes numbered below `shape_ids`.
  void begin(TimeMs now, std::size_t shape_ids);
  // Classes made since begin() (jobs requeued by evictions) are tracked too.
  void fit_shapes(std::size_t shape_ids);
  // A class made during the pass (its id may be an emptied class's).
  void reset_shape(ShapeClassId shape);
  // An eviction freed capacity: no failure proves anything any more.
  void forget();

  // The reason the job would fail, in its own numbers, when a remembered
  // failure covers it; nullopt when it must be tried. Jobs with their own view
  // of the pool (clusters backed off for them, nodes held for them past their
  // SLA) are always tried, and never remembered.
  std::optional<PendingReason> covering(const Job& job, const PlacementPolicy* policy,
                                        TimeMs end) const {
    if (always_tried(job)) return std::nullopt;
    for (const FailedShape& failed : failed_) {
      if (!failed.covers(job, policy, end)) continue;
      PendingReason reason = failed.reason;
      reason.replicas_needed = job.gang.min_available;
      reason.needed = job.minimum().get(reason.resource);
      return reason;
    }
    return std::nullopt;
  }
  // The job found no place (its reason is set).
  void remember(const Job& job, const PlacementPolicy* policy, TimeMs end);
  // A failure was found to cover the class: within a pass, a covered class
  // stays covered.
  bool known_covered(ShapeClassId shape) const { return shape_covered_[shape] != 0; }
  // Whether a remembered failure covers the class's prototype. Compares only
  // the failures remembered since the class was last asked about.
  bool covers_shape(ShapeClassId shape, const Job& prototype, const PlacementPolicy* policy,
                    TimeMs end) {
    if (known_covered(shape)) return true;
    for (std::uint32_t& i = shape_compared_[shape]; i < failed_.size(); ++i) {
      if (!failed_[i].covers(prototype, policy, end)) continue;
      shape_covered_[shape] = 1;
      return true;
    }
    return false;
  }

 private:
  bool always_tried(const Job& job) const { return job.has_backoffs() || job.past_sla_at(now_); }

  TimeMs now_ = 0;
  std::vector<FailedShape> failed_;
  // Per shape class: failures compared with it, and whether one covers it.
  std::vector<std::uint32_t> shape_compared_;
  std::vector<char> shape_covered_;
};

}  // namespace gantry::hub
