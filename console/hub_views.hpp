// gantryctl get hubs: the hubs on the job store, leader first, as a table
// and as a JSON array.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/messages.hpp"

namespace gantry::console {

// NAME ROLE ADMIN STORE GENERATION AGE.
std::string render_hubs_table(const std::vector<protocol::HubInfo>& hubs, std::int64_t now_ms);
std::string render_hubs_json(const std::vector<protocol::HubInfo>& hubs);

}  // namespace gantry::console
