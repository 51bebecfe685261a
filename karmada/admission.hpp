// The mutating admission webhook's decision for Karmada ResourceBindings
// (what volcano-global's webhook manager does): every new binding is created
// suspended and named for Gantry's scheduler, so Karmada's scheduler leaves it
// alone until Gantry releases it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace gantry::karmada {

inline constexpr const char* kSchedulerName = "gantry";

// Input: an AdmissionReview (admission.k8s.io/v1 or v1beta1). Output: the
// AdmissionReview response (same apiVersion, response.uid = request.uid,
// allowed = true). A CREATE of a work.karmada.io ResourceBinding gets a
// base64 JSONPatch that sets spec.suspension.scheduling = true and
// spec.schedulerName = "gantry"; anything else gets no patch. A malformed
// review throws hub::FieldError naming the field.
nlohmann::json admission_response(const nlohmann::json& review);

// Standard base64 (RFC 4648, with padding).
std::string base64_encode(std::string_view bytes);

}  // namespace gantry::karmada
