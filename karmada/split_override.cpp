#include "karmada/split_override.hpp"

#include <algorithm>

#include "karmada/json_fields.hpp"

namespace gantry::karmada {

using nlohmann::json;

namespace {

constexpr const char* kOverridePolicyApiVersion = "policy.karmada.io/v1alpha1";
constexpr const char* kVolcanoGroup = "batch.volcano.sh/";

json add(const std::string& path, std::int32_t value) {
  return json{{"path", path}, {"operator", "add"}, {"value", value}};
}

std::int32_t share_of(const DecisionPart& part, const std::string& task) {
  const auto found = part.task_replicas.find(task);
  return found == part.task_replicas.end() ? 0 : found->second;
}

// The overriders that make one cluster's copy of the Job exactly its part.
json part_overriders(const protocol::JobSpec& job, const DecisionPart& part) {
  json plaintext = json::array();
  std::int32_t part_replicas = 0;
  for (std::size_t i = 0; i < job.tasks.size(); ++i) {
    const protocol::TaskSpec& task = job.tasks[i];
    const std::int32_t share = share_of(part, task.name);
    part_replicas += share;
    const std::string task_path = "/spec/tasks/" + std::to_string(i);
    plaintext.push_back(add(task_path + "/replicas", share));
    // A task minAvailable above its replicas is refused by Volcano's admission.
    if (task.min_available >= 0)
      plaintext.push_back(add(task_path + "/minAvailable", std::min(task.min_available, share)));
  }
  plaintext.push_back(add("/spec/minAvailable", part_replicas));
  if (job.min_success > 0)
    plaintext.push_back(add("/spec/minSuccess", std::min(job.min_success, part_replicas)));
  return json{{"plaintext", std::move(plaintext)}};
}

json owner_references(const json& binding) {
  const auto uid = optional_string_at(binding, "metadata.uid");
  if (!uid || uid->empty()) return json::array();
  return json::array({json{{"apiVersion", binding.value("apiVersion", "work.karmada.io/v1alpha2")},
                           {"kind", "ResourceBinding"},
                           {"name", binding_key(binding).name},
                           {"uid", *uid}}});
}

}  // namespace

bool binds_volcano_job(const json& binding) {
  const std::string api_version = optional_string_at(binding, "spec.resource.apiVersion").value_or("");
  const std::string kind = optional_string_at(binding, "spec.resource.kind").value_or("");
  return kind == "Job" && api_version.starts_with(kVolcanoGroup);
}

std::string override_policies_path(const std::string& namespace_) {
  return std::string("/apis/") + kOverridePolicyApiVersion + "/namespaces/" + namespace_ +
         "/overridepolicies";
}

std::string override_policy_name(const BindingKey& key) {
  return "gantry-" + key.name;
}

json split_override_policy(const json& binding, const protocol::JobSpec& job,
                           const Decision& decision) {
  const BindingKey key = binding_key(binding);
  const json& resource = object_at(binding, "spec.resource");
  json rules = json::array();
  for (const DecisionPart& part : decision.parts)
    rules.push_back(json{{"targetCluster", {{"clusterNames", json::array({part.cluster})}}},
                         {"overriders", part_overriders(job, part)}});
  json metadata{{"name", override_policy_name(key)},
                {"namespace", key.namespace_},
                {"labels",
                 {{kManagedByLabel, kManagedByValue},
                  {kDispatchLabel, std::to_string(decision.dispatch_id)}}},
                {"annotations", {{kBindingAnnotation, key.namespace_ + "/" + key.name}}}};
  if (json owners = owner_references(binding); !owners.empty())
    metadata["ownerReferences"] = std::move(owners);
  return json{{"apiVersion", kOverridePolicyApiVersion},
              {"kind", "OverridePolicy"},
              {"metadata", std::move(metadata)},
              {"spec",
               {{"resourceSelectors",
                 json::array({json{{"apiVersion", string_at(resource, "apiVersion")},
                                   {"kind", string_at(resource, "kind")},
                                   {"namespace", key.namespace_},
                                   {"name", string_at(resource, "name")}}})},
                {"overrideRules", std::move(rules)}}}};
}

}  // namespace gantry::karmada
