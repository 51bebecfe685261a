// Keeps the scheduling core in step with what the member clusters' agents
// say: their Hello, usage reports, admits, rejects and status updates, a
// cluster that stops answering, and a user's cancel. After a hub restart it
// also takes back the runs agents kept (recovery): the store brings every
// unfinished job back as pending while agents list what they still run or
// finished meanwhile, in any order, until a grace period ends.
//
// Pure and deterministic like SchedulerCore: every input takes `now`, and
// what must happen outside (stop a run on an agent, note a job event, record
// an end in the store, log, run a pass) goes into an Outbox the caller drains.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hub/scheduler.hpp"
#include "protocol/messages.hpp"

namespace gantry::hub {

// A run the agent on `cluster` must stop.
struct AgentCancel {
  std::string cluster;
  DispatchId dispatch = 0;
  std::string job;
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
  std::vector<AgentCancel> cancels;
  std::vector<JobEvent> events;
  std::vector<JobEnd> ends;
  std::vector<LogLine> log;
  bool pass_wanted = false;  // the core changed: a scheduling pass may place more

  // Empties it, keeping its capacity for the next input.
  void clear() {
    cancels.clear();
    events.clear();
    ends.clear();
    log.clear();
    pass_wanted = false;
  }
};

class Reconciler {
 public:
  explicit Reconciler(SchedulerCore& core) : core_(core) {}

  // After a hub restart, until end_recovery(): runs of an earlier hub wait
  // for their job to come back from the store, and no pass may run (a
  // restored job must not be placed again before the agent that may still
  // run it has said Hello).
  void begin_recovery() { recovering_ = true; }
  bool recovering() const { return recovering_; }
  // The grace period is over: runs nobody claimed are stopped, restored jobs
  // nobody runs are placed again.
  void end_recovery(TimeMs now, Outbox& out);
  // The job `id` came back from the store (pending) after a hub restart.
  void on_restored(JobId id, TimeMs now, Outbox& out);

  // ---- from agents
  void on_hello(const protocol::Hello& hello, TimeMs now, Outbox& out);
  void on_usage(const protocol::UsageReport& report, TimeMs now, Outbox& out);
  void on_admit(const std::string& cluster, const protocol::Admit& admit, TimeMs now, Outbox& out);
  void on_reject(const std::string& cluster, const protocol::Reject& reject, TimeMs now,
                 Outbox& out);
  void on_status(const std::string& cluster, protocol::StatusUpdate update, TimeMs now,
                 Outbox& out);
  // The cluster stopped answering: what it ran goes back to the queues.
  void on_cluster_lost(const std::string& cluster, TimeMs now, Outbox& out);

  // ---- from users
  // Cancels the job and stops its run. Returns why it cannot be cancelled
  // ("job \"x\" not found", "job \"x\" has already ended (Completed)"), or
  // nullopt once cancelled.
  std::optional<std::string> cancel(std::string_view job, TimeMs now, Outbox& out);

 private:
  // A run of an earlier hub an agent listed, waiting to be taken back.
  struct ParkedRun {
    std::string cluster;
    protocol::RunningDispatch run;
  };
  // The end of an earlier hub's run whose job is not back from the store yet.
  struct ParkedEnd {
    std::string cluster;
    protocol::StatusUpdate update;
    JobPhase phase = JobPhase::kCompleted;
  };

  bool is_pending(const std::string& job_name) const;
  const Dispatch* dispatch_on(const std::string& cluster, DispatchId id) const;
  void take_back_on(const std::string& cluster, TimeMs now, Outbox& out);
  void take_back(const std::string& job_name, TimeMs now, Outbox& out);
  bool ended_while_away(const std::string& cluster, const protocol::StatusUpdate& update,
                        JobPhase phase, TimeMs now, Outbox& out);
  void requeue_unlisted(ClusterIndex index, const protocol::Hello& hello, TimeMs now, Outbox& out);
  void status_of_unknown_run(const std::string& cluster, const protocol::StatusUpdate& update,
                             TimeMs now, Outbox& out);
  void admit(JobId job, DispatchId id, const std::string& cluster, TimeMs now, Outbox& out);
  void finish(JobId job, DispatchId id, JobPhase phase, const std::string& message,
              const std::string& cluster, TimeMs now, Outbox& out);
  void cancel_on_agent(const std::string& cluster, DispatchId id, const std::string& job,
                       Outbox& out);

  SchedulerCore& core_;
  bool recovering_ = false;
  std::map<std::string, ParkedRun> parked_;       // by job name
  std::map<std::string, ParkedEnd> parked_ends_;  // by job name
};

}  // namespace gantry::hub
