#include "console/queue_views.hpp"

#include <cstdio>
#include <utility>

#include "console/json_fields.hpp"
#include "console/object_json.hpp"
#include "console/table.hpp"
#include "console/units.hpp"

namespace gantry::console {

std::string format_share(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", share);
  return text;
}

namespace {

// "-" for none: no capability means nothing caps the queue but the pool, no
// declared deserved that its share comes from its weight.
std::string resources_or_dash(const protocol::ResourceList& resources) {
  return resources.empty() ? "-" : format_resources_readable(resources);
}

}  // namespace

std::string render_queues_table(const std::vector<protocol::QueueInfo>& queues, bool wide) {
  std::vector<std::string> header{"NAME",      "STATE",    "WEIGHT",     "PENDING",
                                  "ALLOCATED", "DESERVED", "CAPABILITY", "SHARE"};
  if (wide) header.push_back("FAIR SHARE");
  Table table(std::move(header));
  for (const auto& queue : queues) {
    std::vector<std::string> row{queue.name,
                                 queue.state,
                                 std::to_string(queue.weight),
                                 format_resources_readable(queue.pending),
                                 format_resources_readable(queue.allocated),
                                 resources_or_dash(queue.declared_deserved),
                                 resources_or_dash(queue.capability),
                                 format_share(queue.share)};
    if (wide) row.push_back(format_resources_readable(queue.deserved));
    table.add_row(std::move(row));
  }
  return table.render();
}

std::string render_priority_classes_table(const std::vector<protocol::PriorityClassInfo>& classes) {
  Table table({"NAME", "VALUE", "GLOBAL-DEFAULT", "PREEMPTION-POLICY"});
  for (const auto& priority_class : classes)
    table.add_row({priority_class.name, std::to_string(priority_class.value),
                   priority_class.global_default ? "true" : "false",
                   priority_class.preemption_policy});
  return table.render();
}

std::string render_queues_json(const std::vector<protocol::QueueInfo>& queues) {
  return json_array_text(queues, queue_json);
}

std::string render_priority_classes_json(const std::vector<protocol::PriorityClassInfo>& classes) {
  return json_array_text(classes, [](const protocol::PriorityClassInfo& priority_class) {
    return Json{{"name", priority_class.name},
                {"value", priority_class.value},
                {"globalDefault", priority_class.global_default},
                {"preemptionPolicy", priority_class.preemption_policy},
                {"description", priority_class.description},
                {"builtIn", priority_class.built_in}};
  });
}

}  // namespace gantry::console
