// Turns a failed gang placement into a sentence that names what was short, so
// that a Reject tells the hub (and the user reading `gantryctl describe`) why.
#pragma once

#include <string>

#include "hub/cluster_state.hpp"
#include "hub/gang.hpp"
#include "hub/placement.hpp"
#include "hub/topology.hpp"

namespace gantry::agents {

// Checks, most specific first: a node selector no node matches; taints on
// every matching node that the task does not tolerate; a replica
// larger than any matching node; the gang's minimum larger than what is free
// in total; a hard network topology no domain of `tiers` holds; and
// otherwise free resources too fragmented across nodes.
std::string explain_misfit(const hub::ClusterState& cluster, const hub::GangShape& gang,
                           const hub::FitResult& fit, const hub::TopologyTiers& tiers);

}  // namespace gantry::agents
