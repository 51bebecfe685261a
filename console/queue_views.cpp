#include "console/queue_views.hpp"

#include <cstdio>

#include "console/json_fields.hpp"
#include "console/table.hpp"
#include "console/units.hpp"

namespace gantry::console {

std::string format_share(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", share);
  return text;
}

std::string render_queues_table(const std::vector<protocol::QueueInfo>& queues) {
  Table table(
      {"NAME", "STATE", "WEIGHT", "PENDING", "ALLOCATED", "DESERVED", "CAPABILITY", "SHARE"});
  for (const auto& queue : queues) {
    // No capability means nothing caps the queue but the pool.
    const std::string capability =
        queue.capability.empty() ? "-" : format_resources(queue.capability);
    table.add_row({queue.name, queue.state, std::to_string(queue.weight),
                   format_resources(queue.pending), format_resources(queue.allocated),
                   format_resources(queue.deserved), capability, format_share(queue.share)});
  }
  return table.render();
}

namespace {

Json queue_json(const protocol::QueueInfo& queue) {
  Json json = {{"name", queue.name},     {"parent", queue.parent},
               {"weight", queue.weight}, {"priority", queue.priority},
               {"state", queue.state},   {"reclaimable", queue.reclaimable}};
  for (const auto& [key, resources] :
       {std::pair{"allocated", &queue.allocated}, std::pair{"deserved", &queue.deserved},
        std::pair{"capability", &queue.capability}, std::pair{"guarantee", &queue.guarantee},
        std::pair{"pending", &queue.pending}}) {
    json[key] = resources_json(*resources);
  }
  json["share"] = queue.share;
  return json;
}

}  // namespace

std::string render_queues_json(const std::vector<protocol::QueueInfo>& queues) {
  return json_array_text(queues, queue_json);
}

}  // namespace gantry::console
