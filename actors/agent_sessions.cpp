#include "actors/agent_sessions.hpp"

namespace gantry::actors {

std::string AgentSessions::open(const std::string& peer, const std::string& cluster,
                                hub::TimeMs now) {
  std::string replaced;
  if (auto previous = peer_by_cluster_.find(cluster); previous != peer_by_cluster_.end()) {
    if (previous->second != peer) {
      replaced = previous->second;
      by_peer_.erase(previous->second);
    }
  }
  // The same peer may also have spoken for another cluster before.
  if (auto existing = by_peer_.find(peer);
      existing != by_peer_.end() && existing->second.cluster != cluster) {
    peer_by_cluster_.erase(existing->second.cluster);
  }
  by_peer_[peer] = Session{peer, cluster, now};
  peer_by_cluster_[cluster] = peer;
  return replaced;
}

const AgentSessions::Session* AgentSessions::touch(const std::string& peer, hub::TimeMs now) {
  auto found = by_peer_.find(peer);
  if (found == by_peer_.end()) return nullptr;
  found->second.last_seen_ms = now;
  return &found->second;
}

std::vector<AgentSessions::Session> AgentSessions::expire(hub::TimeMs now) {
  std::vector<Session> expired;
  for (auto it = by_peer_.begin(); it != by_peer_.end();) {
    if (now - it->second.last_seen_ms >= expiry_ms_) {
      peer_by_cluster_.erase(it->second.cluster);
      expired.push_back(std::move(it->second));
      it = by_peer_.erase(it);
    } else {
      ++it;
    }
  }
  return expired;
}

std::map<std::string, hub::TimeMs> AgentSessions::last_seen() const {
  std::map<std::string, hub::TimeMs> seen;
  for (const auto& [peer, session] : by_peer_) seen[session.cluster] = session.last_seen_ms;
  return seen;
}

}  // namespace gantry::actors
