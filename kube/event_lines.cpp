#include "kube/event_lines.hpp"

#include "config/bounded_json.hpp"

namespace gantry::kube {

bool EventLines::feed(std::string_view data) {
  pending_.append(data);
  std::size_t start = 0;
  for (std::size_t end; (end = pending_.find('\n', start)) != std::string::npos; start = end + 1) {
    if (!deliver(std::string_view(pending_).substr(start, end - start))) return false;
  }
  pending_.erase(0, start);
  return true;
}

bool EventLines::finish() {
  const std::string last = std::move(pending_);
  pending_.clear();
  return deliver(last);
}

bool EventLines::deliver(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
  if (line.empty()) return true;
  nlohmann::json event = config::parse_bounded_json_or_discarded(line);
  if (event.is_discarded() || !event.is_object()) return false;
  ++events_;
  on_event_(event);
  return true;
}

}  // namespace gantry::kube
