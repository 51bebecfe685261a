// Pending jobs grouped, per queue, into shape classes: jobs a scheduling pass
// cannot tell apart when it decides that a job cannot start (same queue,
// priority, preemption policy, time limit, and gangs that dominate each other
// both ways, see dominates()). When every class with jobs left behind a
// queue's cursor is known to fail, the pass leaves the queue without visiting
// them one by one: with a million pending jobs, a pass then costs what the
// changes since the last one can affect, not one step per job.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "hub/job.hpp"

namespace gantry::hub {

// `big` asks at least as much as `small` in every way placement looks at (the
// node order, set by the queue's placement policy, is compared by the caller).
// A job dominating one that found no place cannot find one either.
bool dominates(const Job& big, const Job& small);

struct ShapeClass {
  Job prototype;  // the fields a pass compares, copied from the class's first job
  std::size_t hash = 0;
  std::uint32_t pending = 0;  // 0: the class is free for reuse
  // Why its jobs did not start in the last pass that skipped them (their own
  // reason is older then), and that pass.
  PendingReason skipped_reason;
  std::uint32_t skipped_pass = 0;
};

class PendingShapes {
 public:
  // Counts the pending job in its class, made when new. Jobs a pass must
  // always try for real (an SLA to watch, clusters backing them off) are
  // counted apart and get kIndividualShape.
  ShapeClassId add(const Job& job);
  void remove(QueueIndex queue, ShapeClassId id);

  const std::vector<ShapeClassId>& classes_of(QueueIndex queue) const;
  std::uint32_t individual_pending(QueueIndex queue) const;
  const ShapeClass& shape(ShapeClassId id) const { return classes_[id]; }
  void note_skipped(ShapeClassId id, const PendingReason& reason, std::uint32_t pass) {
    classes_[id].skipped_reason = reason;
    classes_[id].skipped_pass = pass;
  }
  // Class ids are below this (ids of emptied classes are reused).
  std::size_t id_limit() const { return classes_.size(); }

 private:
  void ensure_queue(QueueIndex queue);

  std::vector<ShapeClass> classes_;
  std::vector<ShapeClassId> free_ids_;
  std::unordered_multimap<std::size_t, ShapeClassId> by_hash_;
  std::vector<std::vector<ShapeClassId>> per_queue_;
  std::vector<std::uint32_t> individual_;
};

}  // namespace gantry::hub
