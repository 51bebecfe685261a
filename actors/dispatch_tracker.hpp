// Dispatches sent to agents and not yet answered with Admit or Reject, with
// the time by which an answer is due; and where each cluster's agent is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "hub/job.hpp"

namespace gantry::actors {

class DispatchTracker {
 public:
  struct Awaiting {
    hub::DispatchId id = 0;
    std::string cluster;
    std::string job;
    std::string peer;
    hub::TimeMs deadline_ms = 0;
  };

  // `peer` "" forgets the cluster's agent.
  void set_peer(const std::string& cluster, const std::string& peer);
  // nullptr when the cluster has no agent now.
  const std::string* peer_of(const std::string& cluster) const;

  void sent(Awaiting awaiting) { awaiting_[awaiting.id] = std::move(awaiting); }
  // The agent answered (or the dispatch is moot). Returns whether it was awaited.
  bool answered(hub::DispatchId id) { return awaiting_.erase(id) > 0; }
  bool awaiting(hub::DispatchId id) const { return awaiting_.count(id) > 0; }
  // Removes and returns the awaited dispatch, if it is.
  std::optional<Awaiting> take(hub::DispatchId id);
  // Removes and returns the dispatches whose answer is overdue at `now`.
  std::vector<Awaiting> overdue(hub::TimeMs now);

 private:
  std::unordered_map<std::string, std::string> peer_by_cluster_;
  std::unordered_map<hub::DispatchId, Awaiting> awaiting_;
};

}  // namespace gantry::actors
