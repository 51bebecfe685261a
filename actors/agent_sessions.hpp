// Which ZeroMQ peer speaks for which cluster, and when each was last heard
// from. Liveness follows the ZeroMQ guide's Majordomo rule: a session silent
// for heartbeat interval x liveness has expired.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "hub/job.hpp"

namespace gantry::actors {

class AgentSessions {
 public:
  explicit AgentSessions(hub::TimeMs expiry_ms) : expiry_ms_(expiry_ms) {}

  struct Session {
    std::string peer;
    std::string cluster;
    hub::TimeMs last_seen_ms = 0;
  };

  // A Hello: `peer` now speaks for `cluster`, replacing an earlier peer of that
  // cluster. Returns the replaced peer, or "" when there was none.
  std::string open(const std::string& peer, const std::string& cluster, hub::TimeMs now);
  // Any frame from a registered peer keeps its session alive. Returns nullptr
  // for a peer that never said Hello (or whose session expired).
  const Session* touch(const std::string& peer, hub::TimeMs now);
  // Removes and returns the sessions silent for at least the expiry.
  std::vector<Session> expire(hub::TimeMs now);
  // Cluster -> last seen, for `gantryctl get clusters`.
  std::map<std::string, hub::TimeMs> last_seen() const;
  std::size_t size() const { return by_peer_.size(); }

 private:
  hub::TimeMs expiry_ms_;
  std::unordered_map<std::string, Session> by_peer_;
  std::unordered_map<std::string, std::string> peer_by_cluster_;
};

}  // namespace gantry::actors
