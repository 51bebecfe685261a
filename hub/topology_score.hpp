// A cluster score for gangs with a network-topology constraint (Volcano's
// networkTopology, hub/topology.hpp): how much of the gang's minimum one
// domain of the cluster can hold now, summed over the tiers it may use,
// tightest first. A cluster whose one rack (say) holds the whole gang ranks
// above one with more free GPUs spread over many; a gang without a constraint
// scores 0 everywhere (the other scores of its policy decide). The worked
// example of docs/adding-a-policy.md.
#pragma once

#include <cstdint>

#include "hub/placement_policy.hpp"

namespace gantry::hub {

// Per tier 1 .. the gang's highest allowed: min(the most free whole GPUs of
// one domain of that tier, the whole GPUs of the gang's minimum). Nodes
// without the tier's label belong to no domain. O(tiers x nodes).
std::int64_t gpus_in_one_domain(const ScoreInput& input);

}  // namespace gantry::hub
