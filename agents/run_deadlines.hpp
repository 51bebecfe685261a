// When each committed part must end by its job's time limit (the Prepare's
// time_limit_ms after its Commit). The agent core stops a part whose
// deadline passed, whatever its executor: real processes and simulated
// replicas end the same way.
#pragma once

#include <optional>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "agents/executor.hpp"

namespace gantry::agents {

class RunDeadlines {
 public:
  // Replaces the dispatch's deadline if it has one.
  void add(DispatchId id, TimeMs deadline);
  void remove(DispatchId id);
  // Removes the dispatch's deadline; false when it had none.
  bool remove_if_present(DispatchId id);
  // The earliest deadline; nullopt when no part has one.
  std::optional<TimeMs> next() const;
  // Moves every dispatch whose deadline is <= `now` to `out`, earliest first.
  void take_due(TimeMs now, std::vector<DispatchId>& out);
  std::size_t size() const { return by_id_.size(); }

 private:
  std::set<std::pair<TimeMs, DispatchId>> by_time_;
  std::unordered_map<DispatchId, TimeMs> by_id_;
};

}  // namespace gantry::agents
