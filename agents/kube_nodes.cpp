#include "agents/kube_nodes.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string_view>

#include "config/bounded_json.hpp"
#include "hub/field_error.hpp"
#include "hub/quantity.hpp"
#include "hub/resources.hpp"
#include "hub/tolerations.hpp"

namespace gantry::agents {

using hub::FieldError;
using nlohmann::json;
using protocol::ResourceList;

namespace {

// kube-scheduler counts pods against allocatable "pods" like a resource, one each.
constexpr const char* kPodCountResource = "pods";
constexpr std::int64_t kOnePod = hub::kMilli;
// Pod-level requests (spec.resources, KEP-2837) may set only these.
constexpr std::string_view kPodLevelResources[] = {"cpu", "memory"};

// Where a value sits, for errors: the object ("Pod ml/train-0") and the JSON
// path inside it ("spec.containers[0].resources.requests[cpu]").
struct Location {
  std::string object;
  std::string path{};

  Location key(std::string_view name) const {
    return {object, path.empty() ? std::string(name) : path + "." + std::string(name)};
  }
  Location index(std::size_t i) const { return {object, path + "[" + std::to_string(i) + "]"}; }
  // Resource names and label keys carry dots and slashes: bracketed.
  Location entry(std::string_view name) const {
    return {object, path + "[" + std::string(name) + "]"};
  }
  std::string text() const { return path.empty() ? object : object + " " + path; }
};

std::string type_name(const json& value) {
  return value.type_name();
}

// Member `name` of `object` (which is at `at`), or nullptr when missing or null.
const json* member(const json& object, std::string_view name, const Location& at) {
  if (!object.is_object()) throw FieldError(at.text(), type_name(object), "must be an object");
  const auto found = object.find(name);
  if (found == object.end() || found->is_null()) return nullptr;
  return &*found;
}

// Member `name` as an array; an empty one when missing.
const json& array_member(const json& object, std::string_view name, const Location& at) {
  static const json empty = json::array();
  const json* value = member(object, name, at);
  if (value == nullptr) return empty;
  if (!value->is_array())
    throw FieldError(at.key(name).text(), type_name(*value), "must be a list");
  return *value;
}

// Member `name` as an object; an empty one when missing.
const json& object_member(const json& object, std::string_view name, const Location& at) {
  static const json empty = json::object();
  const json* value = member(object, name, at);
  if (value == nullptr) return empty;
  if (!value->is_object()) {
    throw FieldError(at.key(name).text(), type_name(*value), "must be an object");
  }
  return *value;
}

std::string string_member(const json& object, std::string_view name, const Location& at) {
  const json* value = member(object, name, at);
  if (value == nullptr) return "";
  if (!value->is_string()) throw FieldError(at.key(name).text(), value->dump(), "must be a string");
  return value->get<std::string>();
}

bool bool_member(const json& object, std::string_view name, const Location& at) {
  const json* value = member(object, name, at);
  if (value == nullptr) return false;
  if (!value->is_boolean())
    throw FieldError(at.key(name).text(), config::json_excerpt(*value), "must be a boolean");
  return value->get<bool>();
}

// A resource.Quantity: JSON carries it as a string ("500m"); a plain number
// is accepted too, as the apiserver does.
std::int64_t quantity_milli(const json& value, const Location& at) {
  if (!value.is_string() && !value.is_number()) {
    throw FieldError(at.text(), config::json_excerpt(value), "must be a quantity");
  }
  const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  try {
    return hub::parse_quantity_milli(text);
  } catch (const std::invalid_argument&) {
    throw FieldError(at.text(), text, "is not a valid quantity");
  }
}

// A core/v1 ResourceList ({"cpu": "500m", ...}) in milli-units; {} when missing.
ResourceList resource_list(const json& object, std::string_view name, const Location& at) {
  ResourceList list;
  const Location here = at.key(name);
  for (const auto& [resource, value] : object_member(object, name, at).items()) {
    list[resource] = quantity_milli(value, here.entry(resource));
  }
  return list;
}

protocol::Labels labels_of(const json& metadata, const Location& at) {
  protocol::Labels labels;
  const Location here = at.key("labels");
  for (const auto& [key, value] : object_member(metadata, "labels", at).items()) {
    if (!value.is_string())
      throw FieldError(here.entry(key).text(), config::json_excerpt(value), "must be a string");
    labels[key] = value.get<std::string>();
  }
  return labels;
}

void add(ResourceList& total, const ResourceList& more) {
  for (const auto& [name, milli] : more) total[name] += milli;
}

void raise_to(ResourceList& peak, const ResourceList& candidate) {
  for (const auto& [name, milli] : candidate) peak[name] = std::max(peak[name], milli);
}

ResourceList container_requests(const json& container, const Location& at) {
  return resource_list(object_member(container, "resources", at), "requests", at.key("resources"));
}

std::string pod_identity(const json& pod) {
  const Location root{"Pod"};
  const json& metadata = object_member(pod, "metadata", root);
  const std::string name = string_member(metadata, "name", root.key("metadata"));
  const std::string name_space = string_member(metadata, "namespace", root.key("metadata"));
  return "Pod " + (name_space.empty() ? name : name_space + "/" + name);
}

std::string node_name(const json& node) {
  const Location root{"Node"};
  return string_member(object_member(node, "metadata", root), "name", root.key("metadata"));
}

bool is_terminated(const json& pod, const Location& at) {
  const std::string phase =
      string_member(object_member(pod, "status", at), "phase", at.key("status"));
  return phase == "Succeeded" || phase == "Failed";
}

// Node name -> what the counted pods bound to it request, "pods" included.
std::map<std::string, ResourceList> held_by_others(const std::vector<json>& pods,
                                                   const OwnPodPredicate& is_own) {
  std::map<std::string, ResourceList> held;
  for (const json& pod : pods) {
    const Location at{pod_identity(pod)};
    const std::string node =
        string_member(object_member(pod, "spec", at), "nodeName", at.key("spec"));
    if (node.empty() || is_terminated(pod, at) || (is_own && is_own(pod))) continue;
    ResourceList& on_node = held[node];
    add(on_node, pod_requests(pod, at.object));
    on_node[kPodCountResource] += kOnePod;
  }
  return held;
}

bool is_ready(const json& status, const Location& at) {
  const Location conditions_at = at.key("conditions");
  const json& conditions = array_member(status, "conditions", at);
  for (std::size_t i = 0; i < conditions.size(); ++i) {
    const Location condition = conditions_at.index(i);
    if (string_member(conditions[i], "type", condition) == "Ready") {
      return string_member(conditions[i], "status", condition) == "True";
    }
  }
  return false;  // no Ready condition yet: the node controller has not seen it
}

// spec.taints that keep pods off the node (NoSchedule, NoExecute). A
// PreferNoSchedule taint only makes kube-scheduler prefer other nodes: the
// node still counts for every task.
std::vector<protocol::Taint> taints_of(const json& spec, const Location& at) {
  std::vector<protocol::Taint> taints;
  const Location taints_at = at.key("taints");
  const json& list = array_member(spec, "taints", at);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Location here = taints_at.index(i);
    protocol::Taint taint{string_member(list[i], "key", here),
                          string_member(list[i], "value", here),
                          string_member(list[i], "effect", here)};
    if (hub::repels_pods(taint)) taints.push_back(std::move(taint));
  }
  return taints;
}

bool is_usable(const json& node, const Location& at) {
  if (bool_member(object_member(node, "spec", at), "unschedulable", at.key("spec"))) return false;
  return is_ready(object_member(node, "status", at), at.key("status"));
}

protocol::NodeUsage node_usage(const json& node, const std::string& name, const ResourceList& held,
                               const Location& at) {
  protocol::NodeUsage usage;
  usage.name = name;
  usage.labels = labels_of(object_member(node, "metadata", at), at.key("metadata"));
  if (const auto product = usage.labels.find(std::string(hub::kGpuProductLabel));
      product != usage.labels.end()) {
    usage.gpu_model = product->second;
  }
  usage.taints = taints_of(object_member(node, "spec", at), at.key("spec"));
  const Location status = at.key("status");
  for (const auto& [resource, milli] :
       resource_list(object_member(node, "status", at), "allocatable", status)) {
    if (milli == 0) continue;  // e.g. hugepages-1Gi: "0"; saves the hub a resource name
    const auto taken = held.find(resource);
    usage.allocatable[resource] =
        std::max<std::int64_t>(0, milli - (taken == held.end() ? 0 : taken->second));
  }
  return usage;
}

}  // namespace

ResourceList pod_requests(const json& pod, const std::string& where) {
  const Location at{where};
  const json& spec = object_member(pod, "spec", at);
  const Location spec_at = at.key("spec");

  ResourceList requests;
  const json& containers = array_member(spec, "containers", spec_at);
  for (std::size_t i = 0; i < containers.size(); ++i) {
    add(requests, container_requests(containers[i], spec_at.key("containers").index(i)));
  }

  // Sidecars (restartable init containers) run beside the containers and
  // beside every init container declared after them (KEP-753).
  ResourceList sidecars;
  ResourceList init_peak;
  const json& init_containers = array_member(spec, "initContainers", spec_at);
  for (std::size_t i = 0; i < init_containers.size(); ++i) {
    const Location container_at = spec_at.key("initContainers").index(i);
    ResourceList needs = container_requests(init_containers[i], container_at);
    if (string_member(init_containers[i], "restartPolicy", container_at) == "Always") {
      add(requests, needs);
      add(sidecars, needs);
      raise_to(init_peak, sidecars);
    } else {
      add(needs, sidecars);
      raise_to(init_peak, needs);
    }
  }
  raise_to(requests, init_peak);

  const ResourceList pod_level = resource_list(object_member(spec, "resources", spec_at),
                                               "requests", spec_at.key("resources"));
  for (std::string_view resource : kPodLevelResources) {
    const auto set = pod_level.find(std::string(resource));
    if (set != pod_level.end()) requests[set->first] = set->second;
  }

  add(requests, resource_list(spec, "overhead", spec_at));
  return requests;
}

std::vector<protocol::NodeUsage> usable_nodes(const std::vector<json>& nodes,
                                              const std::vector<json>& pods,
                                              const OwnPodPredicate& is_own) {
  const std::map<std::string, ResourceList> held = held_by_others(pods, is_own);
  static const ResourceList nothing;
  std::vector<protocol::NodeUsage> usable;
  for (const json& node : nodes) {
    const std::string name = node_name(node);
    const Location at{"Node " + name};
    if (!is_usable(node, at)) continue;
    const auto on_node = held.find(name);
    usable.push_back(node_usage(node, name, on_node == held.end() ? nothing : on_node->second, at));
  }
  return usable;
}

}  // namespace gantry::agents
