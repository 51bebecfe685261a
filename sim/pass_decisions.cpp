#include "sim/pass_decisions.hpp"

#include <algorithm>

namespace gantry::sim {

PassDecisions split_pass_decisions(const std::vector<hub::Decision>& decisions) {
  std::vector<hub::DispatchId> dispatched;
  for (const hub::Decision& decision : decisions)
    if (decision.kind == hub::Decision::Kind::kDispatch) dispatched.push_back(decision.dispatch);
  std::sort(dispatched.begin(), dispatched.end());
  std::vector<hub::DispatchId> withdrawn;
  std::vector<hub::DispatchId> evicted;
  PassDecisions out;
  for (const hub::Decision& decision : decisions) {
    if (decision.kind != hub::Decision::Kind::kEvict) continue;
    if (std::binary_search(dispatched.begin(), dispatched.end(), decision.dispatch)) {
      withdrawn.push_back(decision.dispatch);
    } else if (std::find(evicted.begin(), evicted.end(), decision.dispatch) == evicted.end()) {
      evicted.push_back(decision.dispatch);
      out.evictions.push_back(decision);
    }
  }
  std::sort(withdrawn.begin(), withdrawn.end());
  withdrawn.erase(std::unique(withdrawn.begin(), withdrawn.end()), withdrawn.end());
  for (const hub::Decision& decision : decisions)
    if (decision.kind == hub::Decision::Kind::kDispatch &&
        !std::binary_search(withdrawn.begin(), withdrawn.end(), decision.dispatch))
      out.dispatches.push_back(decision);
  out.withdrawn = withdrawn.size();
  return out;
}

}  // namespace gantry::sim
