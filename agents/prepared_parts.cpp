#include "agents/prepared_parts.hpp"

#include <algorithm>

namespace gantry::agents {

void PreparedParts::add(PreparedPart part) {
  const DispatchId id = part.id;
  parts_.insert_or_assign(id, std::move(part));
}

const PreparedPart* PreparedParts::find(DispatchId id) const {
  const auto found = parts_.find(id);
  return found == parts_.end() ? nullptr : &found->second;
}

std::optional<PreparedPart> PreparedParts::take(DispatchId id) {
  const auto found = parts_.find(id);
  if (found == parts_.end()) return std::nullopt;
  std::optional<PreparedPart> part(std::move(found->second));
  parts_.erase(found);
  return part;
}

void PreparedParts::take_expired(TimeMs now, std::vector<PreparedPart>& out) {
  for (auto it = parts_.begin(); it != parts_.end();) {
    if (it->second.hold_until <= now) {
      out.push_back(std::move(it->second));
      it = parts_.erase(it);
    } else {
      ++it;
    }
  }
  // Map order is arbitrary: release (and log) them oldest deadline first.
  std::sort(out.begin(), out.end(), [](const PreparedPart& a, const PreparedPart& b) {
    return a.hold_until != b.hold_until ? a.hold_until < b.hold_until : a.id < b.id;
  });
}

std::optional<TimeMs> PreparedParts::next_deadline() const {
  std::optional<TimeMs> earliest;
  for (const auto& [id, part] : parts_) {
    if (!earliest || part.hold_until < *earliest) earliest = part.hold_until;
  }
  return earliest;
}

void PreparedParts::append_ids(std::vector<DispatchId>& out) const {
  for (const auto& [id, part] : parts_) out.push_back(id);
}

}  // namespace gantry::agents
