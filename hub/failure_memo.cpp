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

void FailureMemo::remember(const Job& job, const PlacementPolicy* policy, TimeMs end) {
  if (failed_.size() >= kMaxFailures || always_tried(job)) return;
  failed_.push_back(FailedShape{&job, policy, job.reason, end});
}

}  // namespace gantry::hub
