#include "karmada/scheduled_bindings.hpp"

#include <algorithm>

#include "karmada/json_fields.hpp"

namespace gantry::karmada {

bool is_scheduled_kind(const nlohmann::json& binding, std::string_view base) {
  const auto api_version = optional_string_at(binding, "spec.resource.apiVersion", base);
  const auto kind = optional_string_at(binding, "spec.resource.kind", base);
  if (!api_version || !kind) return false;
  return std::any_of(kScheduledKinds.begin(), kScheduledKinds.end(), [&](const WorkloadKind& k) {
    return k.api_version == *api_version && k.kind == *kind;
  });
}

bool asks_for_gantry(const nlohmann::json& binding, std::string_view base) {
  if (optional_string_at(binding, "spec.schedulerName", base) == kSchedulerName) return true;
  const nlohmann::json* annotations = optional_object_at(binding, "metadata.annotations", base);
  return annotations != nullptr && annotations->contains(kQueueAnnotation);
}

bool gantry_schedules(const nlohmann::json& binding, std::string_view base) {
  return is_scheduled_kind(binding, base) && asks_for_gantry(binding, base);
}

}  // namespace gantry::karmada
