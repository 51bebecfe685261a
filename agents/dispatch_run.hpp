// This cluster's part of a dispatch once the hub committed it: the state of each of its
// replicas and the Volcano phase and task counts they add up to. Pure
// bookkeeping: it never starts or kills anything, it tells the caller what to
// do.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agents/executor.hpp"
#include "hub/placement.hpp"
#include "protocol/messages.hpp"

namespace gantry::agents {

enum class ReplicaState : std::uint8_t {
  kPending,  // placed, not started yet
  kRunning,
  kStopping,   // the agent asked the executor to kill it
  kSucceeded,  // exited 0
  kFailed,     // exited non-zero (or could not start) on its own
  kStopped,    // gone after the agent killed it
};

// Where one part sits in the whole gang, from its Prepare.
struct PartPlan {
  std::int32_t part = 0;
  std::int32_t parts = 1;
  std::uint32_t epoch = 0;       // the job's placement epoch
  std::int32_t rank_offset = 0;  // RANK of the part's first replica
  std::int32_t world_size = 0;   // replicas over every part
  TimeMs time_limit_ms = 0;      // how long it may run once committed; 0 = none
  std::string member_queue{};    // the member's own queue for its objects; "": the executor's
};

struct RunReplica {
  std::uint32_t task = 0;  // index into JobSpec::tasks
  std::int32_t index = 0;  // replica index within its task, over every part
  std::string node;
  ReplicaState state = ReplicaState::kPending;
  int exit_code = 0;
  // Pending but handed to an executor that says later when it runs (a
  // Kubernetes pod not yet scheduled): stopping it needs a kill.
  bool launched = false;
};

class DispatchRun {
 public:
  // `replicas` are indexed by their rank within the part; `assignment` is what
  // they hold on the nodes.
  DispatchRun(DispatchId id, std::shared_ptr<const protocol::JobSpec> job,
              std::vector<RunReplica> replicas, std::vector<hub::NodeAssignment> assignment,
              PartPlan plan = {});

  DispatchId id() const { return id_; }
  const protocol::JobSpec& job() const { return *job_; }
  const std::vector<RunReplica>& replicas() const { return replicas_; }
  // assignment()[rank] is what replica `rank` holds (empty for an adopted run).
  const std::vector<hub::NodeAssignment>& assignment() const { return assignment_; }
  const PartPlan& plan() const { return plan_; }
  std::string replica_name(std::uint32_t rank) const;  // "<task>-<index>"

  void started(std::uint32_t rank);
  // The executor took the replica but it does not run yet (collect_progress
  // says when); `reason` says why it waits, "" when not known yet.
  void launched(std::uint32_t rank);
  void waiting(std::uint32_t rank, std::string reason);
  // Why the part is still Pending: the last reason a waiting replica gave
  // ("<task>-<index>: <reason>"), "" once none waits.
  const std::string& waiting_reason() const { return waiting_reason_; }
  void failed_to_start(std::uint32_t rank, const std::string& why);
  // `fenced`: its supervisor stopped it (the agent had lost the hub): the
  // whole part is fenced, as by fenced().
  void exited(std::uint32_t rank, int exit_code, int signal, bool fenced = false);
  // The agent stops the replica. Returns true when the executor must kill it;
  // a replica never started just ends.
  bool stopping(std::uint32_t rank);
  // The hub cancelled (or aborted) the dispatch: it ends Aborted with
  // `message`, unless it already failed.
  void cancel(std::string message = "cancelled by the hub");
  // The part ran past its job's time limit: it ends Failed with `message`,
  // unless it already failed or was cancelled.
  void time_limit_reached(std::string message);
  // The agent stops the part itself (self-fencing, protocol/lease_timing.hpp):
  // it ends Failed with `message` and the event PodEvicted, so that the hub
  // requeues the job as an eviction instead of failing it (unless it already
  // failed or was cancelled).
  void fenced(std::string message);
  bool evicted() const { return evicted_; }

  // True once a replica failed or the hub cancelled: every replica still
  // alive must be killed, and no progress update is worth sending until the
  // run has ended.
  bool ending() const { return failed_ || cancelled_; }
  // Running or pending replicas the caller has not yet asked to stop.
  bool is_unstopped(std::uint32_t rank) const;
  // No replica is pending, running or being stopped: nothing holds resources.
  bool finished() const { return live_ == 0; }

  // ---- elastic jobs (docs/elastic.md)
  // Where the gang meets, from its Commit: replicas added later get the same.
  void set_rendezvous(std::string master_addr, std::uint16_t master_port);
  const std::string& master_addr() const { return master_addr_; }
  std::uint16_t master_port() const { return master_port_; }
  // The membership generation and the world size after a resize.
  void resized(std::uint32_t elastic_epoch, std::int32_t world_size);
  std::uint32_t elastic_epoch() const { return elastic_epoch_; }
  // A replica added by a growth (pending until started); returns its rank in the part.
  std::uint32_t add_replica(RunReplica replica, hub::NodeAssignment holds);
  // The replica leaves the part (a shrink): it no longer counts in the
  // status, its exit is no failure, and what it held is returned (and no
  // longer held by the run). The caller then stops it (stopping()).
  hub::NodeAssignment release_replica(std::uint32_t rank);
  bool released(std::uint32_t rank) const { return released_.at(rank) != 0; }
  // The part's members now: replicas neither released nor ended.
  std::vector<std::uint32_t> member_ranks() const;
  // The JSON a replica reads from $GANTRY_ELASTIC_STATE (docs/elastic.md).
  std::string elastic_state_json(const std::string& cluster) const;

  const char* phase() const;
  const std::string& message() const { return message_; }
  void fill_status(protocol::StatusUpdate& update) const;

 private:
  void ended(std::uint32_t rank, ReplicaState state, int exit_code);
  void record_first_failure(std::uint32_t rank, const std::string& what);

  DispatchId id_;
  std::shared_ptr<const protocol::JobSpec> job_;
  std::vector<RunReplica> replicas_;
  std::vector<hub::NodeAssignment> assignment_;
  PartPlan plan_;
  std::vector<char> released_;  // by rank: left the part in a shrink
  std::uint32_t elastic_epoch_ = 0;
  std::string master_addr_;
  std::uint16_t master_port_ = 0;
  std::size_t live_ = 0;  // pending + running + stopping
  std::size_t pending_ = 0;
  bool failed_ = false;
  bool cancelled_ = false;
  bool evicted_ = false;  // fenced: its end is an eviction, not a failure
  std::string message_;
  std::string waiting_reason_;
  // The replica whose end failed the part (its StatusUpdate names it as a
  // PodFailed event for the hub's lifecycle policies); -1: none did.
  std::int64_t first_failed_rank_ = -1;
};

}  // namespace gantry::agents
