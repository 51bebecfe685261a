#include "karmada/binding_job.hpp"

#include <algorithm>
#include <cctype>

#include "config/volcano_job.hpp"
#include "hub/field_error.hpp"
#include "hub/job_request.hpp"
#include "karmada/json_fields.hpp"

namespace gantry::karmada {

using hub::FieldError;
using nlohmann::json;

namespace {

constexpr const char* kVolcanoGroup = "batch.volcano.sh/";
constexpr const char* kVolcanoApiVersion = "batch.volcano.sh/v1alpha1";
constexpr const char* kVolcanoQueueAnnotation = "scheduling.volcano.sh/queue-name";
constexpr const char* kGantryAnnotationPrefix = "gantry.io/";
constexpr const char* kDefaultQueue = "default";
constexpr const char* kGenericTask = "main";
constexpr const char* kGenericImage = "karmada-workload";

bool is_volcano_job(const json& workload) {
  const std::string api_version = optional_string_at(workload, "apiVersion").value_or("");
  const std::string kind = optional_string_at(workload, "kind").value_or("");
  return kind == "Job" && api_version.starts_with(kVolcanoGroup);
}

std::string cluster_selector(const protocol::Labels& workload_annotations) {
  // Karmada jobs only go to Karmada clusters: the source term always wins,
  // the workload's own terms (region=eu, ...) narrow it further.
  std::string selector = std::string(kSourceLabel) + "=" + kSourceValue;
  const auto user = workload_annotations.find(hub::kClusterSelectorAnnotation);
  if (user == workload_annotations.end()) return selector;
  const protocol::Labels terms = hub::parse_match_labels(
      user->second, join_path("metadata.annotations", hub::kClusterSelectorAnnotation));
  for (const auto& [key, value] : terms)
    if (key != kSourceLabel) selector += "," + key + "=" + value;
  return selector;
}

bool divided(const json& binding) {
  return optional_string_at(binding, "spec.placement.replicaScheduling.replicaSchedulingType") ==
         "Divided";
}

json annotations(const json& binding, const json* workload) {
  const BindingKey key = binding_key(binding);
  const protocol::Labels workload_annotations =
      workload != nullptr ? string_map_at(*workload, "metadata.annotations") : protocol::Labels{};
  json out = json::object();
  for (const auto& [name, value] : workload_annotations)
    if (name.starts_with(kGantryAnnotationPrefix)) out[name] = value;
  if (divided(binding) && !out.contains(hub::kSplitAnnotation))
    out[hub::kSplitAnnotation] = "allowed";
  // Whatever the policy or the workload says: a part would be a world of its own.
  if (const auto refusal = refused_split(binding, workload)) {
    out[hub::kSplitAnnotation] = "never";
    out[kSplitRefusedAnnotation] = *refusal;
  }
  out[hub::kClusterSelectorAnnotation] = cluster_selector(workload_annotations);
  out[kBindingAnnotation] = key.namespace_ + "/" + key.name;
  return out;
}

std::string queue(const json* workload, bool volcano) {
  if (workload == nullptr) return kDefaultQueue;
  if (volcano) {
    const auto queue = optional_string_at(*workload, "spec.queue");
    if (queue && !queue->empty()) return *queue;
  }
  const json* annotations = optional_object_at(*workload, "metadata.annotations");
  if (annotations != nullptr) {
    const auto named =
        optional_string_member(*annotations, kVolcanoQueueAnnotation, "metadata.annotations");
    if (named && !named->empty()) return *named;
  }
  return kDefaultQueue;
}

// The known class whose value is the highest at or below `priority` (the
// lowest class when none is): Gantry ranks jobs by its classes' values.
std::string class_for_value(std::int64_t priority) {
  const config::PriorityClasses& classes = config::default_priority_classes();
  const std::pair<const std::string, std::int32_t>* best = nullptr;
  const std::pair<const std::string, std::int32_t>* lowest = nullptr;
  for (const auto& entry : classes) {
    if (entry.first.empty()) continue;
    if (lowest == nullptr || entry.second < lowest->second) lowest = &entry;
    if (entry.second <= priority && (best == nullptr || entry.second > best->second)) best = &entry;
  }
  return (best != nullptr ? best : lowest)->first;
}

// Gantry refuses a job whose PriorityClass it does not know, which would
// leave the binding suspended forever. A class it does not know ranks by
// Karmada's resolved value (spec.schedulePriority.priority, set from the
// PropagationPolicy's priority class) mapped onto Gantry's classes; without
// one the job runs at the default priority (the class stays on the workload
// for the member cluster).
std::optional<std::string> priority_class(const json& binding, const json* workload, bool volcano) {
  std::optional<std::string> name;
  if (workload != nullptr && volcano)
    name = optional_string_at(*workload, "spec.priorityClassName");
  if (!name || name->empty())
    name = optional_string_at(binding, "spec.replicaRequirements.priorityClassName");
  if (name && !name->empty() && config::default_priority_classes().contains(*name)) return name;
  if (const auto value = optional_int_at(binding, "spec.schedulePriority.priority"))
    return class_for_value(*value);
  return std::nullopt;
}

// Copies a ResourceList after checking each quantity, so that a bad one is
// reported under the workload's (or binding's) field, not the document's.
json resources(const json& root, std::string_view path, std::string_view base = {}) {
  json out = json::object();
  const json* node = optional_object_at(root, path, base);
  if (node == nullptr) return out;
  for (const auto& [name, value] : node->items()) {
    const std::string field = join_path(join_path(base, path), name);
    quantity_milli(value, field);
    out[name] = quantity_text(value, field);
  }
  return out;
}

json string_map(const json& root, std::string_view path, std::string_view base = {}) {
  json out = json::object();
  for (const auto& [key, value] : string_map_at(root, path, base)) out[key] = value;
  return out;
}

// A Volcano Job's spec exactly as submitted, so that config::parse_volcano_job
// reads on this path what `gantryctl submit` reads from the same manifest
// (and names the same field paths in its errors); only the queue and the
// priority class are resolved here, as for every Karmada job.
json volcano_spec(const json& binding, const json& workload) {
  const json* submitted = optional_object_at(workload, "spec");
  json spec = submitted != nullptr ? *submitted : json::object();
  spec["queue"] = queue(&workload, /*volcano=*/true);
  if (const auto name = priority_class(binding, &workload, /*volcano=*/true))
    spec["priorityClassName"] = *name;
  else
    spec.erase("priorityClassName");  // a class Gantry does not know would refuse the job
  return spec;
}

// Any other workload (Deployment, StatefulSet, batch Job, ...) is one gang of
// identical replicas as Karmada describes them in replicaRequirements.
json generic_spec(const json& binding, const json* workload) {
  json spec = json::object();
  spec["queue"] = queue(workload, /*volcano=*/false);
  if (const auto name = priority_class(binding, workload, /*volcano=*/false))
    spec["priorityClassName"] = *name;
  const std::int32_t replicas =
      std::max(optional_int32_at(binding, "spec.replicas").value_or(1), 1);
  json container = {{"name", kGenericTask}, {"image", kGenericImage}};
  json requests = resources(binding, "spec.replicaRequirements.resourceRequest");
  if (!requests.empty()) container["resources"] = {{"requests", std::move(requests)}};
  json pod = {{"containers", json::array({std::move(container)})}};
  json selector = string_map(binding, "spec.replicaRequirements.nodeClaim.nodeSelector");
  if (!selector.empty()) pod["nodeSelector"] = std::move(selector);
  spec["tasks"] = json::array(
      {{{"name", kGenericTask}, {"replicas", replicas}, {"template", {{"spec", std::move(pod)}}}}});
  return spec;
}

// Gantry's own metadata: its name and annotations, and a Volcano Job's labels
// as submitted. Server-set fields (uid, resourceVersion, managedFields,
// ownerReferences, ...) and status are left behind with the rest of the
// workload.
json metadata(const json& binding, const json* workload, bool volcano) {
  json out = {{"name", job_name(binding_key(binding))},
              {"annotations", annotations(binding, workload)}};
  if (volcano) {
    json labels = string_map(*workload, "metadata.labels");
    if (!labels.empty()) out["labels"] = std::move(labels);
  }
  return out;
}

}  // namespace

std::optional<std::string> refused_split(const json& binding, const json* workload) {
  if (workload == nullptr) return std::nullopt;
  const auto asked = string_map_at(*workload, "metadata.annotations");
  const auto split = asked.find(hub::kSplitAnnotation);
  const bool wanted = split != asked.end() ? split->second == "allowed" : divided(binding);
  return wanted ? split_refusal(*workload) : std::nullopt;
}

std::optional<std::string> split_refusal(const json& workload) {
  if (!is_volcano_job(workload)) return std::nullopt;
  const json* plugins = optional_object_at(workload, "spec.plugins");
  if (plugins == nullptr) return std::nullopt;
  for (const char* plugin : kWholeWorldPlugins)
    if (plugins->contains(plugin))
      return std::string("not split: Volcano's ") + plugin +
             " plugin needs every replica in one cluster";
  return std::nullopt;
}

BindingKey binding_key(const json& binding) {
  return BindingKey{string_at(binding, "metadata.namespace"), string_at(binding, "metadata.name")};
}

std::string job_name(const BindingKey& key) {
  return key.namespace_ + "." + key.name;
}

std::string workload_path(const json& binding) {
  const std::string api_version = string_at(binding, "spec.resource.apiVersion");
  const std::string kind = string_at(binding, "spec.resource.kind");
  const std::string name = string_at(binding, "spec.resource.name");
  const std::string namespace_ =
      optional_string_at(binding, "spec.resource.namespace").value_or("");
  if (api_version.empty()) throw FieldError("spec.resource.apiVersion", "", "is required");
  if (kind.empty()) throw FieldError("spec.resource.kind", "", "is required");
  if (name.empty()) throw FieldError("spec.resource.name", "", "is required");
  // The core group has no name: "v1" lives under /api, every group under /apis.
  std::string path = api_version.find('/') == std::string::npos ? "/api/" : "/apis/";
  path += api_version;
  if (!namespace_.empty()) path += "/namespaces/" + namespace_;
  std::string plural = kind;
  std::transform(plural.begin(), plural.end(), plural.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return path + "/" + plural + "s/" + name;
}

std::string job_document(const json& binding, const json* workload) {
  // Without the workload, Karmada's replicaRequirements still describe the
  // replicas, so even a Volcano Job can wait in Gantry's queue.
  const bool volcano = workload != nullptr && is_volcano_job(*workload);
  const json document = {
      {"apiVersion", kVolcanoApiVersion},
      {"kind", "Job"},
      {"metadata", metadata(binding, workload, volcano)},
      {"spec", volcano ? volcano_spec(binding, *workload) : generic_spec(binding, workload)}};
  std::string text = document.dump();
  // The hub parses the document again; parsing it here too refuses a bad
  // workload where its binding is known, naming the workload's field.
  config::parse_volcano_job(text);
  return text;
}

}  // namespace gantry::karmada
