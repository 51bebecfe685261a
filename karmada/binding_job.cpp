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

json annotations(const json& binding, const json* workload) {
  const BindingKey key = binding_key(binding);
  const protocol::Labels workload_annotations =
      workload != nullptr ? string_map_at(*workload, "metadata.annotations") : protocol::Labels{};
  json out = json::object();
  for (const auto& [name, value] : workload_annotations)
    if (name.starts_with(kGantryAnnotationPrefix)) out[name] = value;
  const auto scheduling_type =
      optional_string_at(binding, "spec.placement.replicaScheduling.replicaSchedulingType");
  if (scheduling_type == "Divided" && !out.contains(hub::kSplitAnnotation))
    out[hub::kSplitAnnotation] = "allowed";
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

// `path` (here and below) is where the object sits in the workload.
json volcano_container(const json& container, const std::string& path) {
  json out = json::object();
  if (const auto name = optional_string_at(container, "name", path)) out["name"] = *name;
  if (const auto image = optional_string_at(container, "image", path)) out["image"] = *image;
  json requests = resources(container, "resources.requests", path);
  json limits = resources(container, "resources.limits", path);
  if (!requests.empty() || !limits.empty()) {
    out["resources"] = json::object();
    if (!requests.empty()) out["resources"]["requests"] = std::move(requests);
    if (!limits.empty()) out["resources"]["limits"] = std::move(limits);
  }
  return out;
}

json volcano_pod(const json& task, const std::string& task_path) {
  json pod = json::object();
  json containers = json::array();
  const json* pod_spec = optional_object_at(task, "template.spec", task_path);
  if (pod_spec != nullptr) {
    const std::string pod_path = task_path + ".template.spec";
    json selector = string_map(*pod_spec, "nodeSelector", pod_path);
    if (!selector.empty()) pod["nodeSelector"] = std::move(selector);
    if (const json* list = optional_array_at(*pod_spec, "containers", pod_path)) {
      for (std::size_t i = 0; i < list->size(); ++i) {
        const std::string item = pod_path + ".containers[" + std::to_string(i) + "]";
        if (!(*list)[i].is_object()) throw FieldError(item, (*list)[i].dump(), "must be an object");
        containers.push_back(volcano_container((*list)[i], item));
      }
    }
  }
  // An empty list is left for config::parse_volcano_job to refuse, naming the
  // same path the workload has.
  pod["containers"] = std::move(containers);
  return pod;
}

json volcano_task(const json& task, const std::string& path) {
  json out = json::object();
  out["name"] = optional_string_at(task, "name", path).value_or("");
  out["replicas"] = optional_int32_at(task, "replicas", path).value_or(1);
  out["template"] = {{"spec", volcano_pod(task, path)}};
  return out;
}

void volcano_spec(const json& workload, json& spec) {
  const json* tasks = optional_array_at(workload, "spec.tasks");
  if (tasks == nullptr || tasks->empty())
    throw FieldError("spec.tasks", "", "a Volcano Job workload needs at least one task");
  json out = json::array();
  for (std::size_t i = 0; i < tasks->size(); ++i) {
    const std::string path = "spec.tasks[" + std::to_string(i) + "]";
    const json& task = (*tasks)[i];
    if (!task.is_object()) throw FieldError(path, task.dump(), "must be an object");
    out.push_back(volcano_task(task, path));
  }
  spec["tasks"] = std::move(out);
  if (const auto min_available = optional_int32_at(workload, "spec.minAvailable"))
    spec["minAvailable"] = *min_available;
}

// Any other workload (Deployment, StatefulSet, batch Job, ...) is one gang of
// identical replicas as Karmada describes them in replicaRequirements.
void generic_spec(const json& binding, json& spec) {
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
}

}  // namespace

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
  json spec = json::object();
  spec["queue"] = queue(workload, volcano);
  if (const auto name = priority_class(binding, workload, volcano))
    spec["priorityClassName"] = *name;
  if (volcano)
    volcano_spec(*workload, spec);
  else
    generic_spec(binding, spec);
  json document = {
      {"apiVersion", kVolcanoApiVersion},
      {"kind", "Job"},
      {"metadata",
       {{"name", job_name(binding_key(binding))}, {"annotations", annotations(binding, workload)}}},
      {"spec", std::move(spec)}};
  return document.dump();
}

}  // namespace gantry::karmada
