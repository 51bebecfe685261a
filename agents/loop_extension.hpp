// What a cluster-role agent adds to the agent's socket loop (docs/agents.md):
// more things to wait on (the node-role agents' socket, the Kubernetes
// view's wake-up fd), timers (Lease renewal, score writes) and node changes
// for the core. The loop stays one thread; the extension decides nothing the
// core decides.
#pragma once

#include <zmq.h>

#include <optional>
#include <vector>

#include "agents/agent_core.hpp"

namespace gantry::agents {

class LoopExtension {
 public:
  virtual ~LoopExtension() = default;
  // Appends what the loop should also wait on.
  virtual void add_poll_items(std::vector<zmq_pollitem_t>& items) = 0;
  // After each poll: `items` are the ones it appended, with their revents;
  // also called when a timer of next_deadline() is due.
  virtual void on_polled(const zmq_pollitem_t* items, std::size_t count, TimeMs now,
                         AgentCore& core, Outbox& out) = 0;
  virtual std::optional<TimeMs> next_deadline() const = 0;
  // >= 0: the loop stops with this exit status (e.g. the Lease was lost).
  virtual int stop_status() const { return -1; }
};

}  // namespace gantry::agents
