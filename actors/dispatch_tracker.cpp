#include "actors/dispatch_tracker.hpp"

namespace gantry::actors {

void DispatchTracker::set_peer(const std::string& cluster, const std::string& peer) {
  if (!peer.empty()) {
    peer_by_cluster_[cluster] = peer;
    return;
  }
  peer_by_cluster_.erase(cluster);
  std::erase_if(awaiting_, [&](const auto& entry) { return entry.first.second == cluster; });
}

const std::string* DispatchTracker::peer_of(const std::string& cluster) const {
  auto found = peer_by_cluster_.find(cluster);
  return found == peer_by_cluster_.end() ? nullptr : &found->second;
}

void DispatchTracker::sent(Awaiting awaiting) {
  Key key{awaiting.id, awaiting.cluster};
  awaiting_.insert_or_assign(std::move(key), std::move(awaiting));
}

bool DispatchTracker::answered(hub::DispatchId id, const std::string& cluster, Answer answer) {
  auto found = awaiting_.find(Key{id, cluster});
  if (found == awaiting_.end()) return false;
  const Phase phase = found->second.phase;
  const bool answers = answer == Answer::kReject ||
                       (answer == Answer::kAdmit && phase == Phase::kPrepare) ||
                       (answer == Answer::kStatus && phase == Phase::kCommit);
  if (answers) awaiting_.erase(found);
  return answers;
}

void DispatchTracker::forget(hub::DispatchId id, const std::string& cluster) {
  awaiting_.erase(Key{id, cluster});
}

bool DispatchTracker::awaiting(hub::DispatchId id, const std::string& cluster) const {
  return awaiting_.count(Key{id, cluster}) > 0;
}

std::vector<const DispatchTracker::Awaiting*> DispatchTracker::due(hub::TimeMs now) {
  std::vector<const Awaiting*> out;
  for (auto& [key, awaiting] : awaiting_) {
    if (now - awaiting.sent_ms < resend_interval_ms_) continue;
    awaiting.sent_ms = now;
    out.push_back(&awaiting);
  }
  return out;
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
