// Which running gangs belong to queues above their deserved share: a reclaim
// toward a deserved share takes victims only from such queues (and a queue
// under its share never gets over it by losing runs), so its search walks
// these alone. Kept exact at every change of a queue's allocation and after
// every recomputation of the deserved shares, so a search finds the victims,
// in the order, that a walk over every run would.
#include "hub/scheduler.hpp"

namespace gantry::hub {

bool SchedulerCore::over_share(QueueIndex queue) const {
  return queue < over_share_.size() && over_share_[queue];
}

void SchedulerCore::index_over_share(const RunningKey& key, const Dispatch& dispatch, bool add) {
  for (const DispatchPart& part : dispatch.parts) {
    if (add)
      over_share_on_[part.cluster].insert(key);
    else
      over_share_on_[part.cluster].erase(key);
  }
}

// O(1) unless the queue crossed its deserved share: then O(its runs x log).
void SchedulerCore::sync_over_share(QueueIndex queue) {
  if (queue >= over_share_.size()) over_share_.resize(queues_.size(), 0);
  const bool over = queues_.over_deserved(queue);
  if (over == static_cast<bool>(over_share_[queue])) return;
  over_share_[queue] = over ? 1 : 0;
  for (const RunningKey& key : queues_.node(queue).running)
    index_over_share(key, dispatches_.at(key.dispatch), over);
}

void SchedulerCore::sync_over_share() {
  over_share_.resize(queues_.size(), 0);
  for (QueueIndex q = 0; q < queues_.size(); ++q) sync_over_share(q);
}

}  // namespace gantry::hub
