// A cluster-role agent's nodes (docs/agents.md): what its node-role agents
// report (GPUs through NVML, /proc) joined with what Kubernetes says, when the
// agent has a Kubernetes view. With one, Kubernetes lists the nodes and what
// other pods hold, and node reports add their GPUs' use; without one (bare
// machines), the node reports are the nodes. Pure: time is passed in.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agents/executor.hpp"
#include "protocol/messages.hpp"

namespace gantry::agents {

class ClusterNodes {
 public:
  // `stale_after_ms`: a node whose last report is older than this is gone
  // (bare machines) or has no GPU use to show (Kubernetes).
  explicit ClusterNodes(TimeMs stale_after_ms) : stale_after_ms_(stale_after_ms) {}

  // Returns whether the merged nodes changed.
  bool on_report(const protocol::NodeReport& report, TimeMs now);
  bool on_kubernetes(std::vector<protocol::NodeUsage> nodes);
  bool expire(TimeMs now);
  // When expire() next has something to drop; nullopt when no report is kept.
  std::optional<TimeMs> next_expiry() const;

  const std::vector<protocol::NodeUsage>& nodes() const { return merged_; }
  std::size_t reporting() const { return reports_.size(); }

 private:
  struct Reported {
    protocol::NodeReport report;
    TimeMs at = 0;
  };
  bool remerge();

  TimeMs stale_after_ms_;
  std::map<std::string, Reported> reports_;  // by node name
  std::optional<std::vector<protocol::NodeUsage>> kubernetes_;
  std::vector<protocol::NodeUsage> merged_;
};

// A node as its own report describes it (no Kubernetes): its CPUs, memory
// and GPUs allocatable, its GPU product as NVIDIA's GPU feature discovery
// labels it (nvidia.com/gpu.product, spaces as dashes).
protocol::NodeUsage node_from_report(const protocol::NodeReport& report);
std::string gpu_product_label(const std::string& nvml_name);

}  // namespace gantry::agents
