// gantryctl get clusters: the table and the JSON array.
#pragma once

#include <string>
#include <vector>

#include "protocol/messages.hpp"

namespace gantry::console {

// As kubectl shows a node: "Ready" or "NotReady", with ",SchedulingDisabled"
// when cordoned (no new placements).
std::string cluster_status(const protocol::ClusterInfo& cluster);

// NAME STATUS NODES GPU(alloc/cap) CPU MEMORY; the last three as allocated/capacity.
std::string render_clusters_table(const std::vector<protocol::ClusterInfo>& clusters);
std::string render_clusters_json(const std::vector<protocol::ClusterInfo>& clusters);

}  // namespace gantry::console
