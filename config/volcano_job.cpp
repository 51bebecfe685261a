#include "config/volcano_job.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <regex>
#include <set>

#include "config/job_bounds.hpp"
#include "config/job_fields.hpp"
#include "config/kube_names.hpp"
#include "config/lifecycle_policies.hpp"
#include "config/yaml_fields.hpp"
#include "config/yaml_json.hpp"
#include "hub/field_error.hpp"
#include "hub/job_request.hpp"
#include "hub/quantity.hpp"

namespace gantry::config {

using hub::FieldError;

namespace {

constexpr const char* kApiVersion = "batch.volcano.sh/v1alpha1";

// Volcano Job fields Gantry accepts (docs/volcano-compat.md says what each
// does); anything else is a typo or a field from another API and is refused.
const std::set<std::string> kTopFields{"apiVersion", "kind", "metadata", "spec", "status"};
const std::set<std::string> kMetadataFields{"name", "namespace", "labels", "annotations", "generateName"};
const std::set<std::string> kSpecFields{
    "queue",   "minAvailable", "priorityClassName", "priority", "maxRetry", "tasks",
    "schedulerName", "policies", "plugins", "volumes", "ttlSecondsAfterFinished", "minSuccess",
    "runningEstimate", "networkTopology"};
const std::set<std::string> kTaskFields{"name",     "replicas",  "minAvailable",   "template",
                                        "policies", "maxRetry", "dependsOn",      "topologyPolicy",
                                        "partitionPolicy"};
const std::set<std::string> kTopologyPolicies{"none", "best-effort", "restricted", "single-numa-node"};

std::int32_t non_negative_int(const YAML::Node& parent, const std::string& key, const std::string& field,
                              std::int32_t fallback) {
  const std::int32_t value = optional_int(parent, key, field, fallback);
  if (value < 0) throw FieldError(field + "." + key, std::to_string(value), "must not be negative");
  return value;
}

protocol::ResourceList read_resources(const YAML::Node& node, const std::string& field) {
  protocol::ResourceList out;
  if (!node) return out;
  require_map(node, field);
  for (const auto& entry : node) {
    const std::string name = entry.first.as<std::string>();
    const std::string item = field + "." + name;
    const std::string text = scalar_text(entry.second, item);
    try {
      out[name] = hub::parse_quantity_milli(text);
    } catch (const std::invalid_argument& e) {
      throw FieldError(item, text, "is not a valid quantity");
    }
    check_quantity(out[name], text, item);
  }
  return out;
}

protocol::ContainerSpec read_container(const YAML::Node& node, const std::string& field) {
  require_map(node, field);
  protocol::ContainerSpec container;
  container.name = optional_string(node, "name", field);
  container.image = optional_string(node, "image", field);
  container.command = string_list(node["command"], field + ".command");
  container.args = string_list(node["args"], field + ".args");
  if (const YAML::Node env = node["env"]) {
    require_sequence(env, field + ".env");
    for (std::size_t i = 0; i < env.size(); ++i) {
      const std::string item = field + ".env[" + std::to_string(i) + "]";
      require_map(env[i], item);
      protocol::EnvVar var{optional_string(env[i], "name", item), optional_string(env[i], "value", item)};
      if (var.name.empty()) throw FieldError(item + ".name", "", "is required");
      container.env.push_back(std::move(var));
    }
  }
  if (const YAML::Node resources = node["resources"]) {
    require_map(resources, field + ".resources");
    container.requests = read_resources(resources["requests"], field + ".resources.requests");
    container.limits = read_resources(resources["limits"], field + ".resources.limits");
    // Kubernetes: a limit without a request makes the request equal the limit.
    for (const auto& [name, milli] : container.limits) container.requests.emplace(name, milli);
  }
  return container;
}

// Kubernetes' activeDeadlineSeconds: a positive number of seconds (0 = not
// given), at most hub::kMaxTimeLimitMs.
std::int64_t read_deadline_seconds(const YAML::Node& pod, const std::string& pod_field) {
  constexpr std::int64_t kMaxSeconds = hub::kMaxTimeLimitMs / 1000;
  const YAML::Node node = pod["activeDeadlineSeconds"];
  if (!node || node.IsNull()) return 0;
  const std::string field = pod_field + ".activeDeadlineSeconds";
  const std::string text = scalar_text(node, field);
  std::int64_t seconds = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || seconds < 1 ||
      seconds > kMaxSeconds)
    throw FieldError(field, text,
                     std::string("must be a positive whole number of seconds, at most ") +
                         hub::kMaxTimeLimitText);
  return seconds;
}

// template.spec.tolerations, checked as Kubernetes' validation checks them.
protocol::Toleration read_toleration(const YAML::Node& node, const std::string& field) {
  static const std::set<std::string> kFields{"key", "operator", "value", "effect", "tolerationSeconds"};
  static const std::set<std::string> kEffects{"", "NoSchedule", "PreferNoSchedule", "NoExecute"};
  require_map(node, field);
  reject_unknown(node, kFields, field);
  protocol::Toleration toleration{optional_string(node, "key", field), optional_string(node, "operator", field),
                                  optional_string(node, "value", field), optional_string(node, "effect", field)};
  if (toleration.op.empty()) toleration.op = "Equal";
  if (toleration.op != "Equal" && toleration.op != "Exists")
    throw FieldError(field + ".operator", toleration.op, "must be Equal or Exists");
  if (toleration.op == "Exists" && !toleration.value.empty())
    throw FieldError(field + ".value", toleration.value, "must be empty when operator is Exists");
  if (toleration.key.empty() && toleration.op != "Exists")
    throw FieldError(field + ".operator", toleration.op, "must be Exists when key is empty");
  if (!kEffects.count(toleration.effect))
    throw FieldError(field + ".effect", toleration.effect, "must be NoSchedule, PreferNoSchedule or NoExecute");
  return toleration;
}

std::vector<protocol::Toleration> read_tolerations(const YAML::Node& pod, const std::string& pod_field) {
  std::vector<protocol::Toleration> out;
  const YAML::Node list = pod["tolerations"];
  if (!list || list.IsNull()) return out;
  const std::string field = pod_field + ".tolerations";
  require_sequence(list, field);
  for (std::size_t i = 0; i < list.size(); ++i)
    out.push_back(read_toleration(list[i], field + "[" + std::to_string(i) + "]"));
  return out;
}

protocol::TaskSpec read_task(const YAML::Node& node, const std::string& field) {
  require_map(node, field);
  reject_unknown(node, kTaskFields, field);
  protocol::TaskSpec task;
  task.name = optional_string(node, "name", field);
  // A DNS label, as Volcano requires: it becomes part of host names.
  check_dns_label(field + ".name", task.name);
  task.replicas = optional_int(node, "replicas", field, 1);
  if (task.replicas < 1) throw FieldError(field + ".replicas", std::to_string(task.replicas), "must be at least 1");
  check_task_replicas(task.replicas, field + ".replicas");
  const std::string template_field = field + ".template";
  if (const YAML::Node template_node = node["template"]; template_node && !template_node.IsNull())
    require_map(template_node, template_field);
  const YAML::Node pod = node["template"]["spec"];
  if (!pod) throw FieldError(template_field + ".spec", "", "is required");
  const std::string pod_field = template_field + ".spec";
  require_map(pod, pod_field);
  if (const YAML::Node selector = pod["nodeSelector"]) {
    task.node_selector = string_map(selector, pod_field + ".nodeSelector");
    check_labels(task.node_selector, pod_field + ".nodeSelector");
  }
  task.active_deadline_seconds = read_deadline_seconds(pod, pod_field);
  task.tolerations = read_tolerations(pod, pod_field);
  if (node["minAvailable"] && !node["minAvailable"].IsNull()) {
    task.min_available = non_negative_int(node, "minAvailable", field, 0);
    if (task.min_available > task.replicas)
      throw FieldError(field + ".minAvailable", std::to_string(task.min_available),
                       "exceeds the task's " + std::to_string(task.replicas) + " replicas");
  }
  task.max_retry = non_negative_int(node, "maxRetry", field, 0);
  task.policies = read_lifecycle_policies(node["policies"], field + ".policies");
  task.depends_on = read_task_dependency(node["dependsOn"], field + ".dependsOn");
  task.topology_policy = optional_string(node, "topologyPolicy", field);
  if (!task.topology_policy.empty() && !kTopologyPolicies.count(task.topology_policy))
    throw FieldError(field + ".topologyPolicy", task.topology_policy,
                     "must be none, best-effort, restricted or single-numa-node");
  task.partition_policy = read_partition_policy(node["partitionPolicy"], field + ".partitionPolicy", task.replicas);
  const YAML::Node containers = pod["containers"];
  if (!containers || containers.size() == 0)
    throw FieldError(pod_field + ".containers", "", "a task needs at least one container");
  require_sequence(containers, pod_field + ".containers");
  for (std::size_t i = 0; i < containers.size(); ++i)
    task.containers.push_back(read_container(containers[i], pod_field + ".containers[" + std::to_string(i) + "]"));
  // Everything else of the template (volumes, tolerations, labels, ...)
  // reaches Kubernetes as written (agents/kubernetes_executor.cpp).
  task.pod_template = yaml_to_json(node["template"], template_field).dump();
  return task;
}

void read_spec(const YAML::Node& spec, protocol::JobSpec& job, const PriorityClasses& classes) {
  require_map(spec, "spec");
  reject_unknown(spec, kSpecFields, "spec");
  job.queue = optional_string(spec, "queue", "spec");
  if (job.queue.empty()) job.queue = "default";
  check_dns_subdomain("spec.queue", job.queue);
  job.min_available = non_negative_int(spec, "minAvailable", "spec", 0);
  job.max_retry = non_negative_int(spec, "maxRetry", "spec", 3);
  job.min_success = non_negative_int(spec, "minSuccess", "spec", 0);
  if (spec["ttlSecondsAfterFinished"] && !spec["ttlSecondsAfterFinished"].IsNull())
    job.ttl_seconds_after_finished = non_negative_int(spec, "ttlSecondsAfterFinished", "spec", 0);
  job.policies = read_lifecycle_policies(spec["policies"], "spec.policies");
  job.plugins = read_plugins(spec["plugins"], "spec.plugins");
  job.network_topology = read_network_topology(spec["networkTopology"], "spec.networkTopology");
  job.priority_class = optional_string(spec, "priorityClassName", "spec");
  auto known = classes.find(job.priority_class);
  if (known == classes.end()) throw FieldError("spec.priorityClassName", job.priority_class, "unknown PriorityClass");
  job.priority = spec["priority"] ? optional_int(spec, "priority", "spec", 0) : known->second;
  const YAML::Node tasks = spec["tasks"];
  if (!tasks || tasks.size() == 0) throw FieldError("spec.tasks", "", "a job needs at least one task");
  require_sequence(tasks, "spec.tasks");
  check_task_count(tasks.size(), "spec.tasks");
  std::set<std::string> names;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const std::string field = "spec.tasks[" + std::to_string(i) + "]";
    protocol::TaskSpec task = read_task(tasks[i], field);
    if (!names.insert(task.name).second) throw FieldError(field + ".name", task.name, "duplicate task name");
    job.tasks.push_back(std::move(task));
  }
  check_task_dependencies(job.tasks);
  check_job_totals(job);
  std::int32_t replicas = 0;
  std::int32_t task_minimums = 0;
  bool any_task_minimum = false;
  for (const auto& task : job.tasks) {
    replicas += task.replicas;
    task_minimums += task.min_available < 0 ? task.replicas : task.min_available;
    any_task_minimum = any_task_minimum || task.min_available >= 0;
  }
  // Volcano's webhook sets an absent job minAvailable to the sum of the
  // tasks' (each task's defaulting to its replicas).
  if (!spec["minAvailable"] && any_task_minimum) job.min_available = task_minimums;
  if (job.min_success > replicas)
    throw FieldError("spec.minSuccess", std::to_string(job.min_success),
                     "exceeds the job's " + std::to_string(replicas) + " replicas");
  if (job.min_available > replicas)
    throw FieldError("spec.minAvailable", std::to_string(job.min_available),
                     "exceeds the job's " + std::to_string(replicas) + " replicas");
}

}  // namespace

const PriorityClasses& default_priority_classes() {
  static const PriorityClasses classes{
      {"", 0}, {"default-priority", 0}, {"high-priority", 1000}, {"low-priority", -1000}};
  return classes;
}

protocol::JobSpec parse_volcano_job(std::string_view yaml, const PriorityClasses& classes) {
  return parse_volcano_job(load_document(yaml), classes);
}

protocol::JobSpec parse_volcano_job(const YAML::Node& root, const PriorityClasses& classes) try {
  reject_unknown(root, kTopFields, "");
  const std::string api_version = optional_string(root, "apiVersion", "");
  if (api_version != kApiVersion) throw FieldError("apiVersion", api_version, std::string("must be ") + kApiVersion);
  const std::string kind = optional_string(root, "kind", "");
  if (kind != "Job") throw FieldError("kind", kind, "must be Job");
  protocol::JobSpec job;
  const YAML::Node metadata = root["metadata"];
  if (!metadata) throw FieldError("metadata.name", "", "is required");
  require_map(metadata, "metadata");
  reject_unknown(metadata, kMetadataFields, "metadata");
  job.name = optional_string(metadata, "name", "metadata");
  job.generate_name = optional_string(metadata, "generateName", "metadata");
  if (job.name.empty() && !job.generate_name.empty()) {
    // The hub appends 5 characters to the prefix, as Kubernetes does.
    static const std::regex kPrefix(R"([a-z0-9][-a-z0-9.]*)");
    const std::string& prefix = job.generate_name;
    if (prefix.size() > 58 || !std::regex_match(prefix, kPrefix))
      throw FieldError("metadata.generateName", prefix,
                       "must be at most 58 lowercase letters, digits, '-' and '.', starting with a "
                       "letter or digit");
  } else {
    check_dns_subdomain("metadata.name", job.name);
  }
  if (const YAML::Node labels = metadata["labels"]) job.labels = string_map(labels, "metadata.labels");
  if (const YAML::Node annotations = metadata["annotations"]) job.annotations = string_map(annotations, "metadata.annotations");
  check_labels(job.labels, "metadata.labels");
  check_annotations(job.annotations, "metadata.annotations");
  const YAML::Node spec = root["spec"];
  if (!spec) throw FieldError("spec", "", "is required");
  read_spec(spec, job, classes);
  return job;
} catch (const YAML::Exception& error) {
  // A node used as the wrong kind past the typed accessors: still a FieldError.
  throw yaml_exception_error(error);
}

}  // namespace gantry::config
