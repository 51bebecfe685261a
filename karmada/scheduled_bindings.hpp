// Which Karmada ResourceBindings are Gantry's to schedule: the one rule that
// the webhook (what it suspends) and the gateway (what it reads and submits)
// share, so that Gantry never holds, nor reads the workload of, a binding that
// Karmada's own scheduler should place (docs/karmada.md, "Which bindings").
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <string_view>

namespace gantry::karmada {

// The scheduler name a PropagationPolicy gives (spec.schedulerName, copied by
// Karmada's detector to the binding's spec.schedulerName) to hand its
// bindings to Gantry.
inline constexpr const char* kSchedulerName = "gantry";

// Volcano's queue annotation. On a binding it also hands the binding to
// Gantry (Karmada does not copy a workload's annotations to its binding, so
// this is for bindings made or annotated by other tools).
inline constexpr const char* kQueueAnnotation = "scheduling.volcano.sh/queue-name";

// A workload kind as a binding's spec.resource names it.
struct WorkloadKind {
  std::string_view api_version;  // "group/version", or "v1" for the core group
  std::string_view kind;
};

// The workload kinds Gantry schedules through Karmada, and nothing else: a
// Volcano Job is read whole as its tasks (karmada/binding_job.hpp); the others
// are one gang of identical replicas from Karmada's replicaRequirements. A
// kind added here must be added to deploy/karmada/rbac.yaml (`get` on its
// resource): the hub reads the workload of every binding it schedules.
inline constexpr std::array<WorkloadKind, 4> kScheduledKinds{{
    {"batch.volcano.sh/v1alpha1", "Job"},
    {"apps/v1", "Deployment"},
    {"apps/v1", "StatefulSet"},
    {"batch/v1", "Job"},
}};

// `base` is where the binding sits in a larger document ("request.object"):
// a field of the wrong type throws hub::FieldError naming base + field.

// Whether spec.resource names one of kScheduledKinds.
bool is_scheduled_kind(const nlohmann::json& binding, std::string_view base = {});

// Whether the binding asks for Gantry: spec.schedulerName is kSchedulerName,
// or metadata.annotations carries kQueueAnnotation.
bool asks_for_gantry(const nlohmann::json& binding, std::string_view base = {});

// The webhook's rule: suspend a new binding exactly when both hold; anything
// else (a ConfigMap, a Deployment for Karmada's default scheduler) passes
// unchanged.
bool gantry_schedules(const nlohmann::json& binding, std::string_view base = {});

}  // namespace gantry::karmada
