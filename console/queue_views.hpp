// gantryctl get queues: the table and the JSON array.
#pragma once

#include <string>
#include <vector>

#include "protocol/messages.hpp"

namespace gantry::console {

// NAME STATE WEIGHT PENDING ALLOCATED DESERVED CAPABILITY SHARE.
std::string render_queues_table(const std::vector<protocol::QueueInfo>& queues);
std::string render_queues_json(const std::vector<protocol::QueueInfo>& queues);

// The dominant share with two decimals ("0.38").
std::string format_share(double share);

}  // namespace gantry::console
