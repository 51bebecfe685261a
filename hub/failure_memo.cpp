#include "hub/failure_memo.hpp"

#include <algorithm>

namespace gantry::hub {

void FailureMemo::begin(TimeMs now, std::size_t shape_ids) {
  now_ = now;
  failed_.clear();
  shape_compared_.assign(shape_ids, 0);
  shape_covered_.assign(shape_ids, 0);
}

void FailureMemo::fit_shapes(std::size_t shape_ids) {
  if (shape_compared_.size() >= shape_ids) return;
  shape_compared_.resize(shape_ids, 0);
  shape_covered_.resize(shape_ids, 0);
}

void FailureMemo::reset_shape(ShapeClassId shape) {
  shape_compared_[shape] = 0;
  shape_covered_[shape] = 0;
}

void FailureMemo::forget() {
  failed_.clear();
  std::fill(shape_compared_.begin(), shape_compared_.end(), 0);
  std::fill(shape_covered_.begin(), shape_covered_.end(), 0);
}

std::optional<PendingReason> FailureMemo::covering(const Job& job, const PlacementPolicy* policy,
                                                   TimeMs end) const {
  if (always_tried(job)) return std::nullopt;
  for (const FailedShape& failed : failed_) {
    if (!failed.covers(job, policy, end)) continue;
    PendingReason reason = failed.reason;
    reason.replicas_needed = job.gang.min_available;
    reason.needed = job.minimum.get(reason.resource);
    return reason;
  }
  return std::nullopt;
}

void FailureMemo::remember(const Job& job, const PlacementPolicy* policy, TimeMs end) {
  if (failed_.size() >= kMaxFailures || always_tried(job)) return;
  failed_.push_back(FailedShape{&job, policy, job.reason, end});
}

bool FailureMemo::covers_shape(ShapeClassId shape, const Job& prototype,
                               const PlacementPolicy* policy, TimeMs end) {
  if (shape_covered_[shape]) return true;
  for (std::uint32_t& i = shape_compared_[shape]; i < failed_.size(); ++i) {
    if (!failed_[i].covers(prototype, policy, end)) continue;
    shape_covered_[shape] = 1;
    return true;
  }
  return false;
}

}  // namespace gantry::hub
