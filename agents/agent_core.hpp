// What the agent decides, without sockets or clocks: two-phase dispatch
// against its own nodes (Prepare: hold a part's resources or reject it;
// Commit: start its replicas; Abort, Cancel and an expired hold: release it),
// start and stop replicas through an Executor (a part past its job's time
// limit too), turn replica exits into status updates, and keep usage current.
// The socket loop feeds it decoded messages, exits and the time, and sends
// what it puts in an Outbox.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "agents/agent_settings.hpp"
#include "agents/dispatch_run.hpp"
#include "agents/executor.hpp"
#include "agents/node_pool.hpp"
#include "agents/prepared_parts.hpp"
#include "agents/run_deadlines.hpp"
#include "config/inventory.hpp"
#include "protocol/messages.hpp"

namespace gantry::agents {

using OutboundMessage =
    std::variant<protocol::Admit, protocol::Reject, protocol::StatusUpdate, protocol::Resized>;

// Messages for the hub in the order they were decided, whether the node usage
// changed (one UsageReport covers every change of a batch), and lines for the
// agent's log (the core has no logger).
struct Outbox {
  std::vector<OutboundMessage> messages;
  bool usage_changed = false;
  std::vector<std::string> warnings;
};

class AgentCore {
 public:
  AgentCore(std::string cluster, const config::Inventory& inventory, Executor& executor,
            AgentCoreOptions options = {});
  // A cluster-role agent: no nodes until update_nodes() (docs/agents.md).
  AgentCore(std::string cluster, protocol::Labels labels, Executor& executor,
            AgentCoreOptions options = {});

  // The cluster's nodes changed (Kubernetes, node-role reports): admission
  // uses them from now on, and the hub gets a usage report.
  void update_nodes(const std::vector<protocol::NodeUsage>& nodes, Outbox& out);
  // Takes back the runs a previous agent of this cluster left (before the
  // first Hello, which then lists them): each dispatch's replicas, in rank
  // order. They hold nothing in the node pool: Kubernetes counts their pods.
  // Replicas that ended meanwhile count as exited; a run that ended whole is
  // repeated in the Hello's `ended`.
  void adopt(const std::vector<AdoptedReplica>& replicas);
  // OCM scores computed by the cluster role, sent in every usage report.
  void set_placement_scores(const protocol::PlacementScores& scores, Outbox& out);
  // Why the cluster takes no work yet, sent in every usage report ("" = it does).
  void set_not_ready_reason(std::string reason, Outbox& out);

  const std::string& cluster() const { return cluster_; }

  void on_prepare(const protocol::Prepare& prepare, TimeMs now, Outbox& out);
  void on_commit(const protocol::Commit& commit, TimeMs now, Outbox& out);
  void on_abort(const protocol::Abort& abort, Outbox& out);
  void on_cancel(const protocol::Cancel& cancel, Outbox& out);
  // An elastic run grows (its added replicas admitted and started, or the
  // growth refused) or shrinks (its highest-index replicas stopped, no failure).
  void on_resize(const protocol::Resize& resize, TimeMs now, Outbox& out);
  void on_exits(const std::vector<ReplicaExit>& exits, Outbox& out);
  // Replicas that now run, or say why they still wait (executors that
  // report it): a part runs, and its time limit counts, once all of it runs.
  void on_progress(const std::vector<ReplicaProgress>& progress, TimeMs now, Outbox& out);
  // Hands back the committed parts whose replicas still wait past
  // pending_give_up_ms: stopped, and refused to the hub with the reason.
  void give_up_waiting(TimeMs now, Outbox& out);
  std::optional<TimeMs> next_give_up() const { return waiting_.next(); }
  // Releases the prepared parts whose hold ran out by `now`.
  void expire_holds(TimeMs now, Outbox& out);
  // When expire_holds() next has something to release (or a parked Prepare
  // to refuse); nullopt when nothing is held or parked.
  std::optional<TimeMs> next_hold_deadline() const;
  std::size_t parked_count() const { return parked_.size(); }
  // Stops the committed parts that ran past their job's time limit by `now`:
  // each ends Failed, "time limit (1h30m)", once its replicas are gone.
  void expire_time_limits(TimeMs now, Outbox& out);
  // When expire_time_limits() next has a part to stop; nullopt when none has a limit.
  std::optional<TimeMs> next_time_limit() const { return deadlines_.next(); }
  // The agent has been cut off from the hub past its fence timeout:
  // every run is stopped and ends Failed with `message`, reported once the
  // hub is back, so that the hub's requeue never overlaps a live copy.
  void fence(const std::string& message, Outbox& out);
  // The hub welcomed the last Hello: forget the answers given to dispatches
  // that are over (a new hub's dispatch that reuses an id is not taken for a
  // duplicate), and the ends that Hello repeated, which the hub has stored
  // before it welcomed it. Ends that came after the Hello are kept, to be
  // repeated in the next one: the hub they were sent to may die before it
  // stores them.
  void forget_finished();

  protocol::Hello hello(const std::string& agent_version) const;
  protocol::UsageReport usage_report() const;
  std::size_t running_count() const { return runs_.size(); }
  std::size_t prepared_count() const { return prepared_.size(); }
  const DispatchRun* find_run(DispatchId id) const;
  // Whether a dispatch of that job runs here (gantryctl logs -f ends once not).
  bool runs_job(const std::string& job) const;
  const PreparedPart* find_prepared(DispatchId id) const { return prepared_.find(id); }

 private:
  // Takes nodes for the part and fills `part` (all but its deadline);
  // returns why not, "" once its resources are held.
  std::string place_part(const protocol::Prepare& prepare, PreparedPart& part);
  void reject(const protocol::Prepare& prepare, std::string reason, Outbox& out);
  // Prepares that find no room while runs the hub stopped still hold it
  // (preemption: the hub sends the victims' Cancel, then the preemptor's
  // Prepare) wait here instead of being refused, and are answered once those
  // runs are gone: a refusal would back the preemptor off and hand the room
  // it evicted for to someone else.
  struct ParkedPrepare {
    protocol::Prepare prepare;
    TimeMs until = 0;  // then refused, as a hold that runs out
  };
  bool room_is_being_freed() const;
  bool drop_parked(DispatchId id, const std::string& why);
  void answer_parked(Outbox& out);
  void hold(const protocol::Prepare& prepare, PreparedPart part, Outbox& out);
  void release(const PreparedPart& part, std::string reason, Outbox& out);
  void answer_unheld_commit(const protocol::Commit& commit, Outbox& out) const;
  void start_part(PreparedPart part, const protocol::Commit& commit, TimeMs now, Outbox& out);
  void start_replicas(DispatchRun& run, const protocol::Commit& commit, TimeMs now);
  void stop_run(DispatchId id, std::string message, Outbox& out);
  void adopt_run(const std::vector<AdoptedReplica>& replicas);
  void stop_if_cut_short(DispatchRun& run, const std::vector<AdoptedReplica>& replicas);
  std::vector<RunReplica> replicas_for(const std::vector<hub::NodeAssignment>& assignment,
                                       const std::vector<std::uint32_t>& job_task,
                                       const protocol::Prepare& prepare) const;
  void stop_live_replicas(DispatchRun& run);
  // elastic runs (agent_core.cpp, end)
  std::string grow_run(DispatchRun& run, const protocol::Resize& resize,
                       std::vector<std::uint32_t>& added);
  void start_added(DispatchRun& run, const std::vector<std::uint32_t>& added, TimeMs now);
  ReplicaLaunch launch_of(const DispatchRun& run) const;
  bool start_replica(DispatchRun& run, ReplicaLaunch& launch, std::uint32_t rank, TimeMs now);
  void shrink_run(DispatchRun& run, const protocol::Resize& resize);
  std::string elastic_state_path(const DispatchRun& run) const;
  void write_elastic_state(const DispatchRun& run, Outbox& out) const;
  // Sends what changed for `run`; ends it when nothing of it is left.
  void report_progress(DispatchRun& run, Outbox& out);
  // The dispatch holds nothing here any more; its answer is kept for a
  // while, then dropped.
  void mark_over(DispatchId id);
  // Every dispatch whose part holds resources here (prepared or running), ascending.
  std::vector<DispatchId> held_ids() const;

  std::string cluster_;
  protocol::Labels labels_;
  Executor& executor_;
  AgentCoreOptions options_;
  NodePool nodes_;
  protocol::PlacementScores scores_;
  std::string not_ready_reason_;
  PreparedParts prepared_;
  std::unordered_map<DispatchId, std::unique_ptr<DispatchRun>> runs_;
  RunDeadlines deadlines_;  // of the runs whose job has a time limit
  RunDeadlines waiting_;    // of the runs whose replicas do not all run yet
  void start_time_limit(const DispatchRun& run, TimeMs now);
  // The answer to each Prepare (Admit or Reject), so a repeated one gets the
  // same; a part released before its commit is answered Reject from then on.
  // Bounded for dispatches that are over.
  std::unordered_map<DispatchId, OutboundMessage> answers_;
  std::deque<DispatchId> finished_order_;
  // The last status of each dispatch in finished_order_ that ran: a Hello
  // repeats them, since one sent just before the hub went away may never
  // have reached it.
  std::unordered_map<DispatchId, protocol::StatusUpdate> final_status_;
  mutable std::vector<DispatchId> in_last_hello_;  // the ends the last Hello repeated
  std::vector<DispatchId> changed_;    // scratch for on_exits
  std::vector<PreparedPart> expired_;  // scratch for expire_holds
  std::vector<DispatchId> overdue_;    // scratch for expire_time_limits
  std::vector<ParkedPrepare> parked_;  // in arrival order
};

}  // namespace gantry::agents
