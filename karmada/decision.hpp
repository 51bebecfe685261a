// What Gantry writes on a ResourceBinding when it releases it to Karmada, and
// how it reads that back (after a restart, the binding is the record).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gantry::karmada {

struct DecisionPart {
  std::string cluster;
  std::int32_t replicas = 0;
  std::map<std::string, std::int32_t> task_replicas;
};

struct Decision {
  std::uint64_t dispatch_id = 0;
  std::string job;
  std::vector<DecisionPart> parts;  // in part order
};

inline constexpr const char* kDecisionAnnotation = "gantry.io/decision";

// Compact JSON; dispatchId as a decimal string (ids exceed 2^53, which JSON
// readers in other languages round).
std::string decision_json(const Decision& decision);
// Throws hub::FieldError naming gantry.io/decision (and the inner field).
Decision parse_decision(const std::string& text);

// spec.suspension.scheduling == true.
bool is_suspended(const nlohmann::json& binding);
// The binding's released decision: the annotation is present and
// spec.suspension.scheduling is not true.
std::optional<Decision> released_decision(const nlohmann::json& binding);

// JSON merge patch (application/merge-patch+json) that releases the binding:
// metadata.resourceVersion = rv (a stale rv gets 409), the decision
// annotation, spec.clusters = [{name, replicas}] in part order,
// spec.suspension.scheduling = false.
std::string release_patch(const Decision& decision, const std::string& resource_version);
// JSON merge patch that suspends it again (reclaim / preemption / cancel):
// spec.suspension.scheduling = true, spec.clusters removed, the decision
// annotation removed, metadata.resourceVersion = rv.
std::string suspend_patch(const std::string& resource_version);

}  // namespace gantry::karmada
