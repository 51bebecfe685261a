// The mutating admission webhook's decision for Karmada ResourceBindings
// (what volcano-global's webhook does): a new binding that Gantry schedules
// (karmada/scheduled_bindings.hpp) is created suspended and named for Gantry's
// scheduler, so Karmada's scheduler leaves it alone until Gantry releases it;
// every other binding passes unchanged.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "karmada/scheduled_bindings.hpp"

namespace gantry::karmada {

// Input: an AdmissionReview (admission.k8s.io/v1 or v1beta1). Output: the
// AdmissionReview response (same apiVersion, response.uid = request.uid,
// allowed = true). A CREATE of a work.karmada.io ResourceBinding for which
// gantry_schedules() holds gets a base64 JSONPatch that sets
// spec.suspension.scheduling = true and spec.schedulerName = "gantry";
// anything else gets no patch. A malformed review throws hub::FieldError
// naming the field.
nlohmann::json admission_response(const nlohmann::json& review);

}  // namespace gantry::karmada
