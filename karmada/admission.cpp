#include "karmada/admission.hpp"

#include <array>

#include "config/bounded_json.hpp"
#include "hub/field_error.hpp"
#include "karmada/json_fields.hpp"
#include "support/base64.hpp"

namespace gantry::karmada {

using hub::FieldError;
using nlohmann::json;

namespace {

constexpr const char* kBindingGroup = "work.karmada.io";
constexpr const char* kBindingKind = "ResourceBinding";

bool creates_binding(const json& request) {
  return optional_string_at(request, "operation", "request") == "CREATE" &&
         optional_string_at(request, "kind.group", "request") == kBindingGroup &&
         optional_string_at(request, "kind.kind", "request") == kBindingKind;
}

// RFC 6902 ops that leave the binding suspended and Gantry's. "add" on an
// existing member replaces it, so one op fits both a present and an absent
// field. The binding has a spec: gantry_schedules() found its resource there.
json patch_ops(const json& binding) {
  const json& spec = object_at(binding, "spec", "request.object");
  json ops = json::array();
  if (optional_object_at(spec, "suspension", "request.object.spec") == nullptr)
    ops.push_back({{"op", "add"}, {"path", "/spec/suspension"}, {"value", {{"scheduling", true}}}});
  else
    ops.push_back({{"op", "add"}, {"path", "/spec/suspension/scheduling"}, {"value", true}});
  ops.push_back({{"op", "add"}, {"path", "/spec/schedulerName"}, {"value", kSchedulerName}});
  return ops;
}

const json& request_of(const json& review) {
  if (!review.is_object())
    throw FieldError("AdmissionReview", config::json_excerpt(review, 80), "must be a JSON object");
  const json& request = object_at(review, "request");
  if (string_at(request, "uid", "request").empty())
    throw FieldError("request.uid", "", "is required");
  const auto object = request.find("object");
  // DELETE carries a null object; anything else that is not an object is broken.
  if (object != request.end() && !object->is_null() && !object->is_object())
    throw FieldError("request.object", config::json_excerpt(*object, 80), "must be an object");
  return request;
}

}  // namespace

json admission_response(const json& review) {
  const json& request = request_of(review);
  json response = {{"uid", request["uid"]}, {"allowed", true}};
  if (creates_binding(request)) {
    const json* binding = optional_object_at(request, "object", "request");
    if (binding == nullptr) throw FieldError("request.object", "", "is required for CREATE");
    if (gantry_schedules(*binding, "request.object")) {
      response["patchType"] = "JSONPatch";
      response["patch"] = support::encode_base64(patch_ops(*binding).dump());
    }
  }
  const std::string api_version =
      optional_string_at(review, "apiVersion").value_or("admission.k8s.io/v1");
  return {{"apiVersion", api_version.empty() ? "admission.k8s.io/v1" : api_version},
          {"kind", "AdmissionReview"},
          {"response", std::move(response)}};
}

}  // namespace gantry::karmada
