#include "agents/run_deadlines.hpp"

namespace gantry::agents {

void RunDeadlines::add(DispatchId id, TimeMs deadline) {
  remove(id);
  by_time_.emplace(deadline, id);
  by_id_.emplace(id, deadline);
}

void RunDeadlines::remove(DispatchId id) {
  const auto found = by_id_.find(id);
  if (found == by_id_.end()) return;
  by_time_.erase({found->second, id});
  by_id_.erase(found);
}

bool RunDeadlines::remove_if_present(DispatchId id) {
  if (!by_id_.contains(id)) return false;
  remove(id);
  return true;
}

std::optional<TimeMs> RunDeadlines::next() const {
  if (by_time_.empty()) return std::nullopt;
  return by_time_.begin()->first;
}

void RunDeadlines::take_due(TimeMs now, std::vector<DispatchId>& out) {
  while (!by_time_.empty() && by_time_.begin()->first <= now) {
    const DispatchId id = by_time_.begin()->second;
    by_time_.erase(by_time_.begin());
    by_id_.erase(id);
    out.push_back(id);
  }
}

}  // namespace gantry::agents
