#include "karmada/decision.hpp"

#include <charconv>

#include "config/bounded_json.hpp"
#include "hub/field_error.hpp"
#include "karmada/json_fields.hpp"

namespace gantry::karmada {

using hub::FieldError;
using nlohmann::json;

namespace {

constexpr const char* kField = kDecisionAnnotation;

std::string field(std::string_view inner) {
  return join_path(kField, inner);
}

std::uint64_t parse_dispatch_id(const json& root) {
  const std::string text = string_at(root, "dispatchId", kField);
  std::uint64_t id = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (text.empty() || error != std::errc() || end != text.data() + text.size())
    throw FieldError(field("dispatchId"), text, "must be a decimal unsigned 64-bit integer");
  return id;
}

std::int32_t replica_count(const json& value, const std::string& path) {
  const std::int32_t count = int32_value(value, path);
  if (count < 0) throw FieldError(path, std::to_string(count), "must not be negative");
  return count;
}

DecisionPart parse_part(const json& part, const std::string& path) {
  if (!part.is_object()) throw FieldError(path, config::json_excerpt(part), "must be an object");
  DecisionPart out;
  out.cluster = string_at(part, "cluster", path);
  if (out.cluster.empty()) throw FieldError(path + ".cluster", "", "is required");
  out.replicas = replica_count(part.value("replicas", json()), path + ".replicas");
  if (const json* tasks = optional_object_at(part, "tasks", path))
    for (const auto& [task, count] : tasks->items())
      out.task_replicas[task] = replica_count(count, path + ".tasks." + task);
  return out;
}

const json* annotation_of(const json& binding) {
  const json* annotations = optional_object_at(binding, "metadata.annotations");
  if (annotations == nullptr) return nullptr;
  const auto it = annotations->find(kDecisionAnnotation);
  return it == annotations->end() || it->is_null() ? nullptr : &*it;
}

}  // namespace

std::string decision_json(const Decision& decision) {
  json parts = json::array();
  for (const DecisionPart& part : decision.parts)
    parts.push_back(
        {{"cluster", part.cluster}, {"replicas", part.replicas}, {"tasks", part.task_replicas}});
  return json{{"dispatchId", std::to_string(decision.dispatch_id)},
              {"job", decision.job},
              {"parts", std::move(parts)}}
      .dump();
}

Decision parse_decision(const std::string& text) {
  const json root = config::parse_bounded_json_or_discarded(text);
  if (root.is_discarded())
    throw FieldError(
        kField, text,
        "is not valid JSON nested at most " + std::to_string(config::kMaxJsonDepth) + " levels");
  if (!root.is_object()) throw FieldError(kField, text, "must be a JSON object");
  Decision decision;
  decision.dispatch_id = parse_dispatch_id(root);
  decision.job = string_at(root, "job", kField);
  if (decision.job.empty()) throw FieldError(field("job"), "", "is required");
  const json* parts = optional_array_at(root, "parts", kField);
  if (parts == nullptr || parts->empty())
    throw FieldError(field("parts"), "", "needs at least one part");
  for (std::size_t i = 0; i < parts->size(); ++i)
    decision.parts.push_back(parse_part((*parts)[i], field("parts[" + std::to_string(i) + "]")));
  return decision;
}

bool is_suspended(const json& binding) {
  return optional_bool_at(binding, "spec.suspension.scheduling").value_or(false);
}

std::optional<Decision> released_decision(const json& binding) {
  const json* annotation = annotation_of(binding);
  if (annotation == nullptr || is_suspended(binding)) return std::nullopt;
  if (!annotation->is_string())
    throw FieldError(join_path("metadata.annotations", kDecisionAnnotation), annotation->dump(),
                     "must be a string");
  return parse_decision(annotation->get<std::string>());
}

std::string release_patch(const Decision& decision, const std::string& resource_version) {
  json clusters = json::array();
  for (const DecisionPart& part : decision.parts)
    clusters.push_back({{"name", part.cluster}, {"replicas", part.replicas}});
  json patch;
  patch["metadata"]["resourceVersion"] = resource_version;
  patch["metadata"]["annotations"][kDecisionAnnotation] = decision_json(decision);
  patch["spec"]["clusters"] = std::move(clusters);
  patch["spec"]["suspension"]["scheduling"] = false;
  return patch.dump();
}

std::string suspend_patch(const std::string& resource_version) {
  // In a merge patch (RFC 7396) null removes the member.
  json patch;
  patch["metadata"]["resourceVersion"] = resource_version;
  patch["metadata"]["annotations"][kDecisionAnnotation] = nullptr;
  patch["spec"]["clusters"] = nullptr;
  patch["spec"]["suspension"]["scheduling"] = true;
  return patch.dump();
}

}  // namespace gantry::karmada
