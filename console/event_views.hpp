// gantryctl get events: what happened to jobs, oldest first, as kubectl get
// events lists them.
#pragma once

#include <string>
#include <vector>

#include "protocol/messages.hpp"

namespace gantry::console {

// TIME (UTC), JOB, QUEUE, EVENT.
std::string render_events_table(const std::vector<protocol::EventInfo>& events);
// [{"time": "...", "job": ..., "queue": ..., "message": ...}, ...]
std::string render_events_json(const std::vector<protocol::EventInfo>& events);

}  // namespace gantry::console
