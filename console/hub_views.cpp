#include "console/hub_views.hpp"

#include "console/duration.hpp"
#include "console/json_fields.hpp"
#include "console/object_json.hpp"
#include "console/table.hpp"

namespace gantry::console {

std::string render_hubs_table(const std::vector<protocol::HubInfo>& hubs, std::int64_t now_ms) {
  Table table({"NAME", "ROLE", "ADMIN", "STORE", "GENERATION", "AGE"});
  for (const auto& hub : hubs) {
    // A standby has not started a generation of its own.
    table.add_row({hub.name, hub.role, hub.admin.empty() ? "-" : hub.admin, hub.store,
                   hub.generation == 0 ? "-" : std::to_string(hub.generation),
                   hub.started_ms == 0 ? "-" : format_age(now_ms - hub.started_ms)});
  }
  return table.render();
}

std::string render_hubs_json(const std::vector<protocol::HubInfo>& hubs) {
  return json_array_text(hubs, [](const protocol::HubInfo& hub) {
    return Json{{"name", hub.name},
                {"role", hub.role},
                {"admin", hub.admin},
                {"agents", hub.agents},
                {"http", hub.http},
                {"store", hub.store},
                {"generation", hub.generation},
                {"startedAt", hub.started_ms == 0 ? "" : format_timestamp(hub.started_ms)}};
  });
}

}  // namespace gantry::console
