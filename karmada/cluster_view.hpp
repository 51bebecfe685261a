// A Karmada Cluster (cluster.karmada.io/v1alpha1) as Gantry sees a member
// cluster: readiness, labels, and nodes to fit gangs on.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "protocol/messages.hpp"

namespace gantry::karmada {

inline constexpr const char* kNoModelsNote = "no node models: summary fit";

struct ClusterView {
  std::string name;
  bool ready = false;                      // condition type "Ready" with status "True"
  protocol::Labels labels;                 // metadata.labels + {kSourceLabel: "karmada"}
  std::vector<protocol::NodeUsage> nodes;  // see cluster_view()
  // How node fit is known (protocol::UsageReport::fit_note): "" when the
  // nodes are graded nodes; else why they are not, e.g. "no node models:
  // summary fit" (the one summary node is an upper bound: a gang that fits
  // the cluster's free total may fit no real node).
  std::string fit_note;
};

// Nodes: with spec.resourceModels and status.resourceSummary.allocatableModelings,
// one synthetic node per counted node: name "<cluster>/grade<g>-<i>" (i from
// 0), allocatable = the grade's range minimums (a node in the grade has at
// least that free), allocated = {}. Without models, or with models that do
// not grade an extended resource (a name with '/', e.g. nvidia.com/gpu) the
// summary has: one node "<cluster>/summary" with allocatable =
// resourceSummary.allocatable and allocated = allocated + allocating. No
// resourceSummary: no nodes. Every node carries the cluster's labels (Karmada
// reports none per node), gpu_model from nvidia.com/gpu.product.
// fit_note says which: "" for grade nodes (and for no nodes); kNoModelsNote
// without models (no spec.resourceModels or no allocatableModelings);
// "resource models do not cover <names>: summary fit" when some grade leaves
// out extended resources the cluster has (names in order, ", " between).
// A field of the wrong type or a bad quantity throws hub::FieldError.
ClusterView cluster_view(const nlohmann::json& cluster);

}  // namespace gantry::karmada
