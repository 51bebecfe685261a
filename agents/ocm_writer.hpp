// Open Cluster Management's AddOnPlacementScore for this cluster, computed and
// published as OCM's resource-usage-collect addon does, so that an OCM
// Placement can rank Gantry's member clusters by free GPU / CPU / memory
// without that addon installed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kube/client.hpp"
#include "protocol/messages.hpp"

namespace gantry::agents {

// The addon's six scores over the agent's schedulable nodes (free =
// allocatable - allocated), by hub::ocm_scores over a hub::ClusterState built
// from them: node scope = the node with the most free, cluster scope = the
// sum; valid_until_ms = now_ms + validity_ms.
protocol::PlacementScores placement_scores(const std::vector<protocol::NodeUsage>& nodes,
                                           std::int64_t now_ms, std::int64_t validity_ms = 60'000);

// The addon's object name (its agent.go; the score names: hub::named_ocm_scores).
inline constexpr const char* kOcmScoreObjectName = "resource-usage-score";
// The condition OCM's documentation shows on an AddOnPlacementScore.
inline constexpr const char* kOcmScoreUpdatedCondition = "AddOnPlacementScoreUpdated";

// Writes AddOnPlacementScore (cluster.open-cluster-management.io/v1alpha1)
// `name` in `namespace_` (on an OCM hub: the managed cluster's namespace):
// status.scores[] {name, value} x6, status.validUntil (RFC 3339, UTC) and
// status.conditions[] {type AddOnPlacementScoreUpdated, status "True"}.
class OcmScoreWriter {
 public:
  OcmScoreWriter(kube::Client& client, std::string namespace_,
                 std::string name = kOcmScoreObjectName);

  // Creates the object when absent (POST), then sets its status with a PUT on
  // the /status subresource carrying the resourceVersion read (a real API
  // server drops the status of a create when the CRD has a status
  // subresource). A conflict (another writer between read and write) is
  // retried once from a fresh read. Throws std::runtime_error naming the
  // object and the server's answer when the write fails, and
  // std::invalid_argument when `scores` has no valid_until_ms.
  void write(const protocol::PlacementScores& scores);

 private:
  std::string object_path() const;
  bool write_once(const protocol::PlacementScores& scores);

  kube::Client& client_;
  std::string namespace_;
  std::string name_;
};

// metav1.Time text, "2006-01-02T15:04:05Z": whole seconds, rounded down (a
// score then goes stale a fraction of a second early, never late).
std::string format_rfc3339_seconds(std::int64_t unix_ms);

}  // namespace gantry::agents
