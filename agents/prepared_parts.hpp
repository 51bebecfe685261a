// Parts this agent admitted and the hub has not committed yet: their
// resources are held on the nodes and nothing of them runs. Each is held only
// until its deadline, so a Commit that never comes (a hub that died between
// the phases, a lost frame) cannot strand the cluster's GPUs.
#pragma once

#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "agents/dispatch_run.hpp"
#include "agents/executor.hpp"
#include "hub/placement.hpp"
#include "protocol/messages.hpp"

namespace gantry::agents {

struct PreparedPart {
  DispatchId id = 0;
  std::shared_ptr<const protocol::JobSpec> job;
  PartPlan plan;
  std::vector<RunReplica> replicas;             // by rank within the part
  std::vector<hub::NodeAssignment> assignment;  // what they hold on the nodes
  TimeMs hold_until = 0;
};

class PreparedParts {
 public:
  void add(PreparedPart part);
  const PreparedPart* find(DispatchId id) const;
  // Removes the part and returns it; nullopt when it is not held here.
  std::optional<PreparedPart> take(DispatchId id);
  // Moves every part whose hold ran out at `now` (deadline <= now) to `out`.
  void take_expired(TimeMs now, std::vector<PreparedPart>& out);
  // The earliest hold deadline; nullopt when nothing is held.
  std::optional<TimeMs> next_deadline() const;
  // Appends the ids of the held parts (in no particular order).
  void append_ids(std::vector<DispatchId>& out) const;
  std::size_t size() const { return parts_.size(); }

 private:
  // Few at a time (one per dispatch between its two phases): plain scans.
  std::unordered_map<DispatchId, PreparedPart> parts_;
};

}  // namespace gantry::agents
