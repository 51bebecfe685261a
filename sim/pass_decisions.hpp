// One pass's decisions as the simulators apply them. The core may dispatch a
// job and evict that same dispatch later in the same pass (a queue served
// later reclaims what an earlier one just got); no agent ever runs such a
// dispatch, so it is neither a start nor an eviction of running work. The core
// evicts a split dispatch with one decision per part; here it is one eviction.
#pragma once

#include <cstddef>
#include <vector>

#include "hub/scheduler.hpp"

namespace gantry::sim {

struct PassDecisions {
  std::vector<hub::Decision> evictions;   // of dispatches made by earlier passes, one each
  std::vector<hub::Decision> dispatches;  // that survive the pass
  std::size_t withdrawn = 0;              // dispatched and evicted by the same pass
};

// Evictions are applied before dispatches: a job evicted and placed again in
// one pass ends up running.
PassDecisions split_pass_decisions(const std::vector<hub::Decision>& decisions);

}  // namespace gantry::sim
