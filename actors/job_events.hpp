// What happened to each job, for `gantryctl describe job` (each job's own,
// oldest first) and `gantryctl get events` (the hub's most recent, across
// jobs, as Kubernetes keeps recent Events apart from their objects): submitted,
// waiting and why, dispatched with its parts and scores, admitted or refused,
// running, evicted and by whom, requeued, ended.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "hub/job.hpp"
#include "protocol/messages.hpp"

namespace gantry::hub {
class SchedulerCore;
}

namespace gantry::actors {

class JobEvents {
 public:
  // The first event (submitted) is always kept; later ones roll over.
  static constexpr std::size_t kMaxPerJob = 20;
  // get events: the hub's last events across jobs, whoever they were about.
  static constexpr std::size_t kMaxRecent = 10'000;

  // `core` names the jobs: an event carries its job's name and queue.
  explicit JobEvents(const hub::SchedulerCore& core) : core_(core) {}

  void add(hub::JobId job, hub::TimeMs at, std::string text);
  // Oldest first, each prefixed with its UTC time.
  std::vector<std::string> list(hub::JobId job) const;
  // The job was forgotten (deleted): its history goes with it.
  void forget(hub::JobId job);

  // The recent events after the `after`th ever added (0: every one kept)
  // that `wanted` accepts, oldest first.
  template <class Wanted>
  void recent(std::uint64_t after, Wanted wanted, std::vector<protocol::EventInfo>& out) const {
    const std::uint64_t first = added_ - recent_.size();
    for (std::size_t i = after > first ? after - first : 0; i < recent_.size(); ++i)
      if (wanted(recent_[i])) out.push_back(recent_[i]);
  }
  // Events added so far, including those rolled over.
  std::uint64_t added() const { return added_; }

 private:
  const hub::SchedulerCore& core_;
  std::vector<std::vector<std::string>> events_;  // indexed by JobId
  std::deque<protocol::EventInfo> recent_;
  std::uint64_t added_ = 0;
};

// "2024-05-01T12:00:00.123Z"
std::string format_utc(hub::TimeMs at);

}  // namespace gantry::actors
