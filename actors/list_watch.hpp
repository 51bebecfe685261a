// gantryctl get -w: who watches which list, and what changed since each was
// last told. Jobs are pushed when something happened to them (an event);
// clusters and queues when their row differs from the last one pushed;
// events as they are added. A watcher told nothing for kWatchKeepaliveMs is
// sent an empty answer, so that it knows the hub is there.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "actors/actor_messages.hpp"
#include "actors/admin_replies.hpp"
#include "actors/job_events.hpp"

namespace gantry::actors {

class ListWatch {
 public:
  static constexpr std::size_t kMaxWatchers = 64;
  // How often changes are gathered while anyone watches.
  static constexpr hub::TimeMs kTickMs = 500;

  // "" once added, else why not (the limit, a kind that cannot be watched).
  std::string add(const ReplyTo& to, const protocol::ListRequest& request, const JobEvents& events,
                  hub::TimeMs now);
  void remove(const std::string& peer);
  bool empty() const { return watchers_.empty(); }
  // A job ended: its last row, before the core forgets it.
  bool wants_jobs() const;
  void job_ended(protocol::JobInfo info) { ended_.push_back(std::move(info)); }

  struct Push {
    ReplyTo to;
    protocol::ListReply reply;
  };
  // What each watcher has not been told yet.
  std::vector<Push> changes(const hub::SchedulerCore& core, const JobEvents& events,
                            const LastSeen& last_seen, hub::TimeMs now);

 private:
  struct Watcher {
    ReplyTo to;
    std::string kind;
    std::string job;                // events: only this job's ("" every job's)
    std::uint64_t events_seen = 0;  // events: JobEvents::added() when last told
    hub::TimeMs last_sent = 0;
  };

  bool watched(const std::string& kind) const;
  std::vector<protocol::JobInfo> changed_jobs(const hub::SchedulerCore& core,
                                              const JobEvents& events, hub::TimeMs now);
  template <class Row>
  std::vector<Row> changed_rows(std::vector<Row> rows, std::map<std::string, std::string>& sent);

  std::vector<Watcher> watchers_;
  std::uint64_t jobs_events_seen_ = 0;
  std::vector<protocol::JobInfo> ended_;
  std::map<std::string, std::string> clusters_sent_;  // name -> its row, packed
  std::map<std::string, std::string> queues_sent_;
  // Kinds whose first watcher just got the whole list: their rows are noted, not pushed.
  std::set<std::string> unprimed_;
};

}  // namespace gantry::actors
