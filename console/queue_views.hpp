// gantryctl get queues / get priorityclasses: the tables and the JSON arrays.
#pragma once

#include <string>
#include <vector>

#include "protocol/messages.hpp"

namespace gantry::console {

// NAME STATE WEIGHT PENDING ALLOCATED DESERVED CAPABILITY SHARE, DESERVED as the
// queue declares it; wide adds FAIR SHARE, what the hub computes it deserves.
std::string render_queues_table(const std::vector<protocol::QueueInfo>& queues, bool wide = false);
std::string render_queues_json(const std::vector<protocol::QueueInfo>& queues);

// NAME VALUE GLOBAL-DEFAULT PREEMPTION-POLICY, as kubectl get priorityclasses.
std::string render_priority_classes_table(const std::vector<protocol::PriorityClassInfo>& classes);
std::string render_priority_classes_json(const std::vector<protocol::PriorityClassInfo>& classes);

// The dominant share with two decimals ("0.38").
std::string format_share(double share);

}  // namespace gantry::console
