// A Karmada Cluster (cluster.karmada.io/v1alpha1) as Gantry sees a member
// cluster: readiness, labels, and nodes to fit gangs on.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "protocol/messages.hpp"

namespace gantry::karmada {

struct ClusterView {
  std::string name;
  bool ready = false;                      // condition type "Ready" with status "True"
  protocol::Labels labels;                 // metadata.labels + {kSourceLabel: "karmada"}
  std::vector<protocol::NodeUsage> nodes;  // see cluster_view()
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
// A field of the wrong type or a bad quantity throws hub::FieldError.
ClusterView cluster_view(const nlohmann::json& cluster);

}  // namespace gantry::karmada
