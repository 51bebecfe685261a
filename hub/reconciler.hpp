// Keeps the scheduling core in step with what the member clusters' agents
// say: their Hello, usage reports, the two-phase answers (Admit / Reject for
// each part of a dispatch), status updates, a cluster that stops answering
// (not ready after its lease, lost after the lost grace), an operator's
// cordon / drain and a user's cancel. It fences: a run whose dispatch is no
// longer its job's current one is stopped wherever it shows up, and its end
// never changes the job. After a hub restart it also takes back the runs
// agents kept (recovery): the store brings every unfinished job back as
// pending, with its last dispatch record, while agents list what they still
// run or finished meanwhile, in any order, until a grace period ends.
//
// Pure and deterministic like SchedulerCore: every input takes `now`, and
// what must happen outside (commit, abort or stop a part on an agent, note a
// job event, record an end in the store, log, run a pass) goes into an Outbox
// the caller drains.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "hub/scheduler.hpp"
#include "protocol/messages.hpp"

namespace gantry::hub {

// A part of a dispatch the agent on `cluster` must stop or release.
struct AgentCancel {
  std::string cluster;
  DispatchId dispatch = 0;
  std::string job;
  std::string reason;  // for an Abort: why
};

// A line of a job's history (what `gantryctl describe job` shows).
struct JobEvent {
  JobId job = 0;
  TimeMs at = 0;
  std::string text;
};

// The job ended (Completed, Failed or Aborted): the store must not bring it back.
struct JobEnd {
  JobId job = 0;
  JobPhase phase = JobPhase::kCompleted;
  TimeMs at = 0;
};

struct LogLine {
  enum class Level : std::uint8_t { kInfo, kWarn, kError };
  Level level = Level::kInfo;
  std::string text;
};

// What the reconciler decided, in the order it decided it.
struct Outbox {
  std::vector<AgentCancel> cancels;  // Cancel: stop a committed part
  std::vector<AgentCancel> aborts;   // Abort: release a prepared part
  // Every part admitted: record the commit in the store, then send Commit to
  // each part (core.find_dispatch says where, and the rendezvous).
  std::vector<DispatchId> commits;
  std::vector<JobEvent> events;
  std::vector<JobEnd> ends;
  std::vector<LogLine> log;
  // The core changed: a scheduling pass may place more. (A pass that a
  // backoff running out allows later: SchedulerCore::next_backoff_end.)
  bool pass_wanted = false;

  // Empties it, keeping its capacity for the next input.
  void clear() {
    cancels.clear();
    aborts.clear();
    commits.clear();
    events.clear();
    ends.clear();
    log.clear();
    pass_wanted = false;
  }
};

// A job's last dispatch as the store recorded it before the restart.
struct RestoredDispatch {
  DispatchId id = 0;
  bool committed = false;             // Commit was decided (and recorded) for it
  std::vector<std::string> clusters;  // by part index
  std::string rendezvous_host;
  std::int32_t rendezvous_port = 0;
};

// Runs agents hold from before this hub's state was made, by (cluster, dispatch).
using HeldRuns = std::map<std::pair<std::string, DispatchId>, protocol::RunningDispatch>;

class Reconciler {
 public:
  explicit Reconciler(SchedulerCore& core) : core_(core) {}

  // A hub on a new or rebuilt state does not know what agents ran before it
  // was made: their runs with a dispatch id below `state_first`, or from
  // `later_from` on (a lost state's later generations), are held, never
  // stopped, until they end or an operator drains their cluster.
  void hold_runs_of_other_states(DispatchId state_first, DispatchId later_from) {
    state_first_ = state_first;
    later_states_from_ = later_from;
  }
  // Runs held that way, by cluster.
  const HeldRuns& held() const { return held_; }

  // After a hub restart, until end_recovery(): runs of an earlier hub wait
  // for their job to come back from the store, and no pass may run (a
  // restored job must not be placed again before the agent that may still
  // run it has said Hello).
  void begin_recovery() { recovering_ = true; }
  bool recovering() const { return recovering_; }
  // Clusters where a restored job's last dispatch was committed that have
  // not reported (Hello, then a usage report) since this hub started: the
  // job may still run there. Recovery waits for them, up to the lost grace,
  // by which an agent cut off from the hub has stopped its runs itself.
  std::vector<std::string> clusters_awaited() const;
  // The grace period is over: runs nobody claimed are stopped, restored jobs
  // nobody runs are placed again.
  void end_recovery(TimeMs now, Outbox& out);
  // The job `id` came back from the store (pending) after a hub restart, with
  // its last dispatch record if the store had one.
  void on_restored(JobId id, const RestoredDispatch* record, TimeMs now, Outbox& out);

  // ---- from agents
  void on_hello(const protocol::Hello& hello, TimeMs now, Outbox& out);
  void on_usage(const protocol::UsageReport& report, TimeMs now, Outbox& out);
  void on_admit(const std::string& cluster, const protocol::Admit& admit, TimeMs now, Outbox& out);
  void on_reject(const std::string& cluster, const protocol::Reject& reject, TimeMs now,
                 Outbox& out);
  void on_status(const std::string& cluster, protocol::StatusUpdate update, TimeMs now,
                 Outbox& out);
  // The agent's answer to an elastic job's growth (docs/elastic.md).
  void on_resized(const std::string& cluster, const protocol::Resized& resized, TimeMs now,
                  Outbox& out);
  // The cluster's agent has been silent past its lease: no new placements;
  // what it runs keeps its place for the lost grace.
  void on_cluster_silent(const std::string& cluster, TimeMs now, Outbox& out);
  // A silent cluster's agent was heard again before the lost grace ran out.
  void on_cluster_heard(const std::string& cluster, TimeMs now, Outbox& out);
  // Silent past the lost grace: what it ran goes back to the queues.
  void on_cluster_lost(const std::string& cluster, TimeMs now, Outbox& out);

  // What lifecycle policies decided since the last input (a pass may evict
  // a gang, time a pending job out or end a restart backoff): their parts
  // are stopped, their events noted, their ends recorded.
  void carry_out_lifecycle(TimeMs now, Outbox& out);

  // ---- from operators and users
  // Returns why not (no such cluster), or nullopt once done.
  std::optional<std::string> cordon(std::string_view cluster, bool cordoned, TimeMs now,
                                    Outbox& out);
  // Cordons the cluster and stops what it runs; those jobs are placed
  // elsewhere once stopped.
  std::optional<std::string> drain(std::string_view cluster, TimeMs now, Outbox& out);
  // Cancels the job and stops its run. Returns why it cannot be cancelled
  // ("job \"x\" not found", "job \"x\" has already ended (Completed)"), or
  // nullopt once cancelled.
  std::optional<std::string> cancel(std::string_view job, TimeMs now, Outbox& out);

 private:
  void note_waiting(const std::string& cluster, const Dispatch& dispatch,
                    const protocol::StatusUpdate& update, TimeMs now, Outbox& out);
  // The parts of an earlier hub's dispatch that agents listed, waiting to be
  // taken back: by cluster.
  struct ParkedDispatch {
    std::string job;
    std::map<std::string, protocol::RunningDispatch> parts;
  };
  // The end of an earlier hub's run whose job is not back from the store yet.
  struct ParkedEnd {
    std::string cluster;
    protocol::StatusUpdate update;
    JobPhase phase = JobPhase::kCompleted;
  };

  bool of_other_state(DispatchId id) const {
    return id < state_first_ || (later_states_from_ != 0 && id >= later_states_from_);
  }
  void hold(const std::string& cluster, const protocol::RunningDispatch& run, Outbox& out);
  bool held_run_ended(const std::string& cluster, const protocol::StatusUpdate& update,
                      Outbox& out);
  void stop_held_on(const std::string& cluster, Outbox& out);
  void agent_not_ready(ClusterIndex index, const std::string& reason, Outbox& out);
  bool is_pending(const std::string& job_name) const;
  const Dispatch* dispatch_on(const std::string& cluster, DispatchId id) const;
  void fence(const std::string& cluster, const protocol::RunningDispatch& run, TimeMs now,
             Outbox& out);
  void take_back_on(const std::string& cluster, TimeMs now, Outbox& out);
  void take_back(DispatchId id, TimeMs now, Outbox& out);
  bool adopt(const ParkedDispatch& parked, DispatchId id, JobId job, const RestoredDispatch* record,
             TimeMs now, Outbox& out);
  void release_parked(DispatchId id, const ParkedDispatch& parked, Outbox& out);
  bool ended_while_away(const std::string& cluster, const protocol::StatusUpdate& update,
                        JobPhase phase, TimeMs now, Outbox& out);
  void requeue_unlisted(ClusterIndex index, const protocol::Hello& hello, TimeMs now, Outbox& out);
  void status_of_unknown_run(const std::string& cluster, const protocol::StatusUpdate& update,
                             TimeMs now, Outbox& out);
  void part_ended(const std::string& cluster, DispatchId id, JobPhase phase,
                  const std::string& message, TimeMs now, Outbox& out);
  void part_fenced(const std::string& cluster, DispatchId id, const std::string& message,
                   TimeMs now, Outbox& out);
  void withdrawn(const std::vector<WithdrawnDispatch>& dispatches, const std::string& why,
                 TimeMs now, Outbox& out);
  // Tells the agents of `clusters` to stop their parts of the dispatch:
  // Cancel when it was committed, else Abort.
  void stop_parts(DispatchId id, const std::string& job, bool committed,
                  const std::vector<ClusterIndex>& clusters, const std::string& reason,
                  Outbox& out);
  void cancel_on_agent(const std::string& cluster, DispatchId id, const std::string& job,
                       Outbox& out);
  void abort_on_agent(const std::string& cluster, DispatchId id, const std::string& job,
                      const std::string& reason, Outbox& out);
  const RestoredDispatch* record_of(const std::string& job) const;

  SchedulerCore& core_;
  bool recovering_ = false;
  std::map<DispatchId, ParkedDispatch> parked_;
  std::map<std::string, ParkedEnd> parked_ends_;     // by job name
  std::map<std::string, RestoredDispatch> records_;  // by job name, until taken back or replaced
  std::vector<LifecycleStep> steps_;                 // reused by carry_out_lifecycle
  DispatchId state_first_ = 0;
  DispatchId later_states_from_ = 0;
  HeldRuns held_;
  std::set<std::string> reported_;  // clusters with a usage report since this hub started
};

}  // namespace gantry::hub
