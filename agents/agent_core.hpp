// What the agent decides, without sockets or clocks: admit or reject a
// dispatch against its own nodes, start and stop replicas through an Executor,
// turn replica exits into status updates, and keep usage current. The socket
// loop feeds it decoded messages and exits and sends what it puts in an Outbox.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "agents/dispatch_run.hpp"
#include "agents/executor.hpp"
#include "agents/node_pool.hpp"
#include "config/inventory.hpp"
#include "protocol/messages.hpp"

namespace gantry::agents {

using OutboundMessage = std::variant<protocol::Admit, protocol::Reject, protocol::StatusUpdate>;

// Messages for the hub in the order they were decided, and whether the node
// usage changed (one UsageReport covers every change of a batch).
struct Outbox {
  std::vector<OutboundMessage> messages;
  bool usage_changed = false;
};

class AgentCore {
 public:
  AgentCore(std::string cluster, const config::Inventory& inventory, Executor& executor);

  const std::string& cluster() const { return cluster_; }

  void on_dispatch(const protocol::Dispatch& dispatch, TimeMs now, Outbox& out);
  void on_cancel(const protocol::Cancel& cancel, Outbox& out);
  void on_exits(const std::vector<ReplicaExit>& exits, Outbox& out);
  // The hub restarted and its dispatch ids start over: forget the answers
  // given to dispatches that no longer run, so a new dispatch that reuses an
  // id is not taken for a duplicate.
  void forget_finished();

  protocol::Hello hello(const std::string& agent_version) const;
  protocol::UsageReport usage_report() const;
  std::size_t running_count() const { return runs_.size(); }
  const DispatchRun* find_run(DispatchId id) const;

 private:
  struct Answer {
    bool admitted = false;
    std::string job;
    std::string reason;
  };

  void reject(const protocol::Dispatch& dispatch, std::string reason, Outbox& out);
  void admit(const protocol::Dispatch& dispatch, std::vector<RunReplica> replicas,
             std::vector<hub::NodeAssignment> assignment, TimeMs now, Outbox& out);
  void start_replicas(DispatchRun& run, TimeMs now);
  std::vector<RunReplica> replicas_for(const std::vector<hub::NodeAssignment>& assignment,
                                       const std::vector<std::uint32_t>& job_task) const;
  void stop_live_replicas(DispatchRun& run);
  // Sends what changed for `run`; ends it when nothing of it is left.
  void report_progress(DispatchRun& run, Outbox& out);
  void remember(DispatchId id, Answer answer);
  // The dispatch runs no more; its answer is kept for a while, then dropped.
  void mark_over(DispatchId id);
  void replay_answer(DispatchId id, const Answer& answer, Outbox& out) const;

  std::string cluster_;
  protocol::Labels labels_;
  Executor& executor_;
  NodePool nodes_;
  std::unordered_map<DispatchId, std::unique_ptr<DispatchRun>> runs_;
  // Every answer given, so a repeated dispatch gets the same one; bounded for
  // dispatches that are over.
  std::unordered_map<DispatchId, Answer> answers_;
  std::deque<DispatchId> finished_order_;
  // The last status of each dispatch in finished_order_: a Hello repeats them,
  // since one sent just before the hub went away may never have reached it.
  std::unordered_map<DispatchId, protocol::StatusUpdate> final_status_;
  std::vector<DispatchId> changed_;  // scratch for on_exits
};

}  // namespace gantry::agents
