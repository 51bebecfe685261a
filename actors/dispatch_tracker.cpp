#include "actors/dispatch_tracker.hpp"

namespace gantry::actors {

void DispatchTracker::set_peer(const std::string& cluster, const std::string& peer) {
  if (peer.empty()) {
    peer_by_cluster_.erase(cluster);
  } else {
    peer_by_cluster_[cluster] = peer;
  }
}

const std::string* DispatchTracker::peer_of(const std::string& cluster) const {
  auto found = peer_by_cluster_.find(cluster);
  return found == peer_by_cluster_.end() ? nullptr : &found->second;
}

std::optional<DispatchTracker::Awaiting> DispatchTracker::take(hub::DispatchId id) {
  auto found = awaiting_.find(id);
  if (found == awaiting_.end()) return std::nullopt;
  Awaiting awaiting = std::move(found->second);
  awaiting_.erase(found);
  return awaiting;
}

std::vector<DispatchTracker::Awaiting> DispatchTracker::overdue(hub::TimeMs now) {
  std::vector<Awaiting> late;
  for (auto it = awaiting_.begin(); it != awaiting_.end();) {
    if (now >= it->second.deadline_ms) {
      late.push_back(std::move(it->second));
      it = awaiting_.erase(it);
    } else {
      ++it;
    }
  }
  return late;
}

}  // namespace gantry::actors
