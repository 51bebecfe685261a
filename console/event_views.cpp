#include "console/event_views.hpp"

#include "console/json_fields.hpp"
#include "console/table.hpp"

namespace gantry::console {

std::string render_events_table(const std::vector<protocol::EventInfo>& events) {
  Table table({"TIME", "JOB", "QUEUE", "EVENT"});
  for (const protocol::EventInfo& event : events)
    table.add_row({format_timestamp(event.at_ms), event.job, event.queue, event.message});
  return table.render();
}

std::string render_events_json(const std::vector<protocol::EventInfo>& events) {
  return json_array_text(events, [](const protocol::EventInfo& event) {
    return Json{{"time", timestamp_json(event.at_ms)},
                {"job", event.job},
                {"queue", event.queue},
                {"message", event.message}};
  });
}

}  // namespace gantry::console
