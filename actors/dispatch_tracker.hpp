// The Prepare and Commit frames sent to agents and not yet answered, one per
// part (dispatch id, cluster): a Prepare is answered by that cluster's Admit
// or Reject, a Commit by any StatusUpdate of the dispatch from that cluster,
// or a Reject. An unanswered frame is due to be sent again every resend
// interval (a frame lost on the wire is retried; agents take duplicates
// harmlessly) until its deadline, when it is overdue. Also where each
// cluster's agent is. Plain C++: time is whatever the caller says it is.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hub/job.hpp"

namespace gantry::actors {

class DispatchTracker {
 public:
  enum class Phase : std::uint8_t { kPrepare, kCommit };
  enum class Answer : std::uint8_t { kAdmit, kReject, kStatus };

  struct Awaiting {
    hub::DispatchId id = 0;
    std::string cluster;
    std::string job;
    std::int32_t part = 0;
    Phase phase = Phase::kPrepare;
    std::string frame;            // sent again as it is
    hub::TimeMs sent_ms = 0;      // when it was last sent
    hub::TimeMs deadline_ms = 0;  // unanswered by then: overdue
  };

  explicit DispatchTracker(hub::TimeMs resend_interval_ms)
      : resend_interval_ms_(resend_interval_ms) {}

  // `peer` "" forgets the cluster's agent and every frame awaited of it.
  void set_peer(const std::string& cluster, const std::string& peer);
  // nullptr when the cluster has no agent now.
  const std::string* peer_of(const std::string& cluster) const;

  // Awaits an answer to the frame; replaces what was awaited of that part.
  void sent(Awaiting awaiting);
  // An answer from `cluster`. Returns whether it answered what was awaited.
  bool answered(hub::DispatchId id, const std::string& cluster, Answer answer);
  // The part was told to stop (Abort, Cancel): nothing more is awaited of it.
  void forget(hub::DispatchId id, const std::string& cluster);
  bool awaiting(hub::DispatchId id, const std::string& cluster) const;
  std::size_t size() const { return awaiting_.size(); }

  // The frames unanswered for a resend interval at `now`, marked as sent now.
  // The pointers are valid until the tracker next changes.
  std::vector<const Awaiting*> due(hub::TimeMs now);
  // Removes and returns the frames whose answer is overdue at `now`.
  std::vector<Awaiting> overdue(hub::TimeMs now);

 private:
  using Key = std::pair<hub::DispatchId, std::string>;  // a part: (dispatch, cluster)

  hub::TimeMs resend_interval_ms_;
  std::unordered_map<std::string, std::string> peer_by_cluster_;
  std::map<Key, Awaiting> awaiting_;  // ordered: resends and timeouts in id order
};

}  // namespace gantry::actors
