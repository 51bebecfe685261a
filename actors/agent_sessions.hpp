// Which ZeroMQ peer speaks for which cluster, and when each was last heard
// from. Two limits, both measured from the last frame heard:
// - the lease: a session silent that long is *silent* (its cluster gets no
//   new placements; what it runs keeps its place), until any frame makes it
//   live again;
// - the lost grace: the session is removed (its cluster is lost and its jobs
//   go back to their queues); the peer must say Hello again.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hub/job.hpp"

namespace gantry::actors {

class AgentSessions {
 public:
  AgentSessions(hub::TimeMs lease_ms, hub::TimeMs lost_grace_ms)
      : lease_ms_(lease_ms), lost_grace_ms_(lost_grace_ms) {}

  struct Session {
    std::string peer;
    std::string cluster;
    hub::TimeMs last_seen_ms = 0;
    bool silent = false;
    bool karmada = false;  // the Karmada gateway, not the cluster's own agent
  };

  // A Hello: `peer` now speaks for `cluster`, replacing an earlier peer of that
  // cluster. Returns the replaced peer, or "" when there was none.
  std::string open(const std::string& peer, const std::string& cluster, hub::TimeMs now,
                   bool karmada = false);
  // The peer of the cluster's own agent, when it has a session: the Karmada
  // gateway may not take the cluster from it (the agent's node-level report
  // wins); "" when there is none.
  std::string agent_of(const std::string& cluster) const;

  struct Touched {
    const Session* session = nullptr;  // nullptr: the peer never said Hello, or was lost
    bool woke = false;                 // the session was silent until this frame
  };
  // Any frame from a registered peer keeps its session alive.
  Touched touch(const std::string& peer, hub::TimeMs now);

  struct Expired {
    std::vector<Session> silent;  // the lease ran out just now
    std::vector<Session> lost;    // the lost grace ran out: removed
  };
  // What changed at `now`, each list ordered by cluster name.
  Expired expire(hub::TimeMs now);

  // Cluster -> last seen, for `gantryctl get clusters`.
  std::map<std::string, hub::TimeMs> last_seen() const;
  std::size_t size() const { return by_peer_.size(); }

 private:
  hub::TimeMs lease_ms_;
  hub::TimeMs lost_grace_ms_;
  std::map<std::string, Session> by_peer_;  // ordered: expiry order is deterministic
  std::map<std::string, std::string> peer_by_cluster_;
};

}  // namespace gantry::actors
