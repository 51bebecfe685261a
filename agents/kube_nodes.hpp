// The cluster role's view of its Kubernetes nodes: what each schedulable node
// still offers once the pods bound to it by others are counted, computed from
// Node and Pod objects (core/v1 JSON) as kube-scheduler's NodeResourcesFit
// counts them. Pure: no I/O, no clock.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

#include "protocol/messages.hpp"

namespace gantry::agents {

// Whether a pod is one of Gantry's own (created by the kubernetes executor).
using OwnPodPredicate = std::function<bool(const nlohmann::json& pod)>;

// One NodeUsage per usable node, in the order of `nodes`. A node is usable
// unless cordoned (spec.unschedulable) or its Ready condition is not "True".
//
// NodeUsage.allocatable is status.allocatable less the requests of the
// non-terminated pods (status.phase not Succeeded / Failed) bound to the node
// (spec.nodeName) for which `is_own` is false; "pods" also loses one per such
// pod. Gantry's own pods are left in, as the agent's NodePool accounts them
// itself, so NodeUsage.allocated stays empty (as in an inventory). Resources
// whose allocatable is zero are left out; what others over-request clamps to 0.
// labels are metadata.labels; gpu_model is the nvidia.com/gpu.product label;
// taints are spec.taints with effect NoSchedule or NoExecute (PreferNoSchedule
// does not keep pods off a node).
//
// Throws hub::FieldError naming the object and the JSON path, e.g.
// `Pod ml/train-0 spec.containers[1].resources.requests[cpu]`, on a bad quantity
// or a field of the wrong type.
std::vector<protocol::NodeUsage> usable_nodes(const std::vector<nlohmann::json>& nodes,
                                              const std::vector<nlohmann::json>& pods,
                                              const OwnPodPredicate& is_own);

// A pod's effective requests, as Kubernetes computes them (k8s.io/component-
// helpers resource.PodRequests, sidecar rule of KEP-753, stable since 1.33):
// the sum of spec.containers' requests plus those of restartable ("sidecar")
// init containers (restartPolicy: Always), raised per resource to the peak of
// the init phase, where init container i needs its own requests plus the
// sidecars started before it; then pod-level spec.resources.requests replace
// cpu and memory when set; then spec.overhead is added. `where` names the pod
// in errors.
protocol::ResourceList pod_requests(const nlohmann::json& pod, const std::string& where);

}  // namespace gantry::agents
