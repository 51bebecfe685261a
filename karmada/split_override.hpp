// The per-cluster revision of a split Volcano Job, written as a Karmada
// OverridePolicy (policy.karmada.io/v1alpha1, namespaced).
//
// Why: Karmada's resource interpreter has no ReviseReplica for
// batch.volcano.sh Jobs, so every cluster in spec.clusters receives the whole
// Job; a replicaRevision customization would get only a total count, not the
// per-task shares of a split. An OverridePolicy whose rules target one
// cluster each makes every member's copy exactly its part (docs/karmada.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "karmada/binding_job.hpp"
#include "karmada/decision.hpp"
#include "protocol/messages.hpp"

namespace gantry::karmada {

// Labels on every OverridePolicy Gantry writes: whose it is and which
// dispatch it revises for.
inline constexpr const char* kManagedByLabel = "app.kubernetes.io/managed-by";
inline constexpr const char* kManagedByValue = "gantry";
inline constexpr const char* kDispatchLabel = "gantry.io/dispatch";

// Whether the binding's resource is a Volcano Job (batch.volcano.sh/*, kind
// Job): the one kind Gantry schedules that Karmada cannot divide itself.
bool binds_volcano_job(const nlohmann::json& binding);

// /apis/policy.karmada.io/v1alpha1/namespaces/<ns>/overridepolicies
std::string override_policies_path(const std::string& namespace_);

// "gantry-<binding name>", in the binding's namespace: one per binding, so
// a later split replaces it and nothing else has to be remembered.
std::string override_policy_name(const BindingKey& key);

// The OverridePolicy that revises the binding's Volcano Job for each part of
// `decision` (more than one part): per cluster, one rule targeting only that
// cluster (targetCluster.clusterNames) whose plaintext overriders set
//  - /spec/tasks/<i>/replicas to the part's share of task i (0 when none),
//  - /spec/tasks/<i>/minAvailable to min(the task's own, its share), only
//    for a task whose template states one,
//  - /spec/minAvailable to the part's replicas (each part is a gang of all
//    its replicas; Volcano refuses more than the tasks' total),
//  - /spec/minSuccess to min(the job's, the part's replicas) when stated.
// Operator "add": RFC 6902 add replaces a member that exists and creates one
// that the template leaves to Volcano's defaults (replace would fail there).
// Tasks are indexed in `job`'s order, which is the workload's
// (karmada::job_document keeps spec.tasks as submitted). Owned by the
// binding (ownerReferences, when its uid is known), so Kubernetes' garbage
// collector removes it with the binding.
nlohmann::json split_override_policy(const nlohmann::json& binding, const protocol::JobSpec& job,
                                     const Decision& decision);

}  // namespace gantry::karmada
