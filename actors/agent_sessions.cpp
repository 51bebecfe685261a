#include "actors/agent_sessions.hpp"

#include <algorithm>

namespace gantry::actors {

std::string AgentSessions::open(const std::string& peer, const std::string& cluster,
                                hub::TimeMs now, bool karmada) {
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
  by_peer_[peer] = Session{peer, cluster, now, false, karmada};
  peer_by_cluster_[cluster] = peer;
  return replaced;
}

std::string AgentSessions::agent_of(const std::string& cluster) const {
  const auto peer = peer_by_cluster_.find(cluster);
  if (peer == peer_by_cluster_.end()) return "";
  const Session& session = by_peer_.at(peer->second);
  return session.karmada ? "" : session.peer;
}

AgentSessions::Touched AgentSessions::touch(const std::string& peer, hub::TimeMs now) {
  auto found = by_peer_.find(peer);
  if (found == by_peer_.end()) return {};
  Session& session = found->second;
  session.last_seen_ms = now;
  const bool woke = session.silent;
  session.silent = false;
  return {&session, woke};
}

AgentSessions::Expired AgentSessions::expire(hub::TimeMs now) {
  Expired expired;
  for (auto it = by_peer_.begin(); it != by_peer_.end();) {
    Session& session = it->second;
    const hub::TimeMs quiet = now - session.last_seen_ms;
    if (quiet >= lost_grace_ms_) {
      peer_by_cluster_.erase(session.cluster);
      expired.lost.push_back(std::move(session));
      it = by_peer_.erase(it);
      continue;
    }
    if (quiet >= lease_ms_ && !session.silent) {
      session.silent = true;
      expired.silent.push_back(session);
    }
    ++it;
  }
  const auto by_cluster = [](const Session& a, const Session& b) { return a.cluster < b.cluster; };
  std::sort(expired.silent.begin(), expired.silent.end(), by_cluster);
  std::sort(expired.lost.begin(), expired.lost.end(), by_cluster);
  return expired;
}

std::map<std::string, hub::TimeMs> AgentSessions::last_seen() const {
  std::map<std::string, hub::TimeMs> seen;
  for (const auto& [peer, session] : by_peer_) seen[session.cluster] = session.last_seen_ms;
  return seen;
}

}  // namespace gantry::actors
