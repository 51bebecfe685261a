#include "agents/kubernetes_executor.hpp"

#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <system_error>
#include <unordered_set>

#include "agents/job_plugins.hpp"
#include "agents/pod_log_source.hpp"
#include "agents/replica_env.hpp"
#include "hub/field_error.hpp"
#include "hub/quantity.hpp"
#include "kube/query.hpp"
#include "kube/status_message.hpp"
#include "support/base64.hpp"

namespace gantry::agents {
using nlohmann::json;

namespace {

constexpr const char* kVolcanoGroupVersion = "batch.volcano.sh/v1alpha1";
constexpr const char* kVolcanoScheduler = "volcano";
constexpr const char* kHostnameLabel = "kubernetes.io/hostname";

// Which agent, dispatch and replica a pod belongs to: how pods map back to
// ReplicaKeys, in both modes (Volcano copies a task template's labels to its pods).
constexpr const char* kAgentLabel = "gantry.io/agent";
constexpr const char* kJobLabel = "gantry.io/job";
constexpr const char* kDispatchLabel = "gantry.io/dispatch-id";
constexpr const char* kRankLabel = "gantry.io/rank";  // the replica's rank within the part
constexpr const char* kTaskLabel = "gantry.io/task";
constexpr const char* kPartLabel = "gantry.io/part";
// The gang, as the kubernetes-sigs scheduler-plugins Coscheduling plugin (and
// schedulers following it, e.g. Fluence) reads it. They gang pods only with a
// PodGroup object of that name, which Gantry does not create: the agent has
// already admitted the whole gang against its nodes before any pod exists.
constexpr const char* kPodGroupLabel = "scheduling.x-k8s.io/pod-group";
// Label values are capped at 63 characters, so the full names go here too.
constexpr const char* kPartsAnnotation = "gantry.io/parts";
constexpr const char* kJobAnnotation = "gantry.io/job";
constexpr const char* kTaskAnnotation = "gantry.io/task";
constexpr const char* kTaskIndexAnnotation = "gantry.io/task-index";
// Volcano mode, on a task's template: which task of the job it is (spec
// order) and the index over every part of its replica 0 here.
constexpr const char* kTaskOrderAnnotation = "gantry.io/task-order";
constexpr const char* kFirstIndexAnnotation = "gantry.io/first-index";
// kubectl logs reads this container when none is named, else the first.
constexpr const char* kDefaultContainerAnnotation = "kubectl.kubernetes.io/default-container";
// Set by Volcano's job controller on the pods it creates.
constexpr const char* kVolcanoJobNameLabel = "volcano.sh/job-name";

constexpr std::size_t kMaxLabelLength = 63;  // DNS-1123 labels and label values
// Volcano names pods <job>-<task>-<index> and refuses a Job whose pod names
// would exceed 63 characters; the group (and Job) name leaves room for the task.
constexpr std::size_t kMaxGroupNameLength = 40;
constexpr std::size_t kHashLength = 8;
constexpr int kKilledExitCode = 128 + SIGKILL;
constexpr int kCouldNotStartExitCode = 127;  // what a shell reports for a command it cannot run
constexpr auto kFirstListGuard = std::chrono::seconds(30);

// ---------------------------------------------------------------- names

std::string short_hash(std::string_view text) {
  std::uint32_t hash = 2166136261u;  // FNV-1a: stable across runs and builds
  for (unsigned char c : text) hash = (hash ^ c) * 16777619u;
  char out[kHashLength + 1];
  std::snprintf(out, sizeof out, "%08x", hash);
  return out;
}

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

std::string trim_non_alnum(std::string text) {
  while (!text.empty() && !is_alnum(text.back())) text.pop_back();
  const auto first = std::find_if(text.begin(), text.end(), is_alnum);
  return std::string(first, text.end());
}

// `prefix` + `suffix` as a DNS-1123 label of at most `max_length`
// characters. A prefix that had to be changed (case, characters, length)
// keeps a hash of the original, so that distinct names stay distinct.
std::string dns_label(std::string_view prefix, const std::string& suffix,
                      std::size_t max_length = kMaxLabelLength) {
  std::string clean;
  for (char c : prefix) {
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    clean.push_back(is_alnum(lower) ? lower : '-');
  }
  clean = trim_non_alnum(clean);
  if (clean == prefix && clean.size() + suffix.size() <= max_length) return clean + suffix;
  const std::size_t fixed = suffix.size() + kHashLength + 1;
  const std::size_t keep = max_length > fixed ? max_length - fixed : 0;
  std::string head = trim_non_alnum(clean.substr(0, keep));
  return (head.empty() ? "" : head + "-") + short_hash(prefix) + suffix;
}

bool is_label_value(std::string_view text) {
  if (text.size() > kMaxLabelLength) return false;
  if (text.empty()) return true;
  if (!is_alnum(text.front()) || !is_alnum(text.back())) return false;
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return is_alnum(c) || c == '-' || c == '_' || c == '.'; });
}

// A user's name as a label value: itself when it is one, else shortened with a hash.
std::string label_value(const std::string& text) {
  if (is_label_value(text)) return text;
  return dns_label(text, "");
}

std::string group_name(const std::string& job, DispatchId dispatch) {
  return dns_label(job, "-" + std::to_string(dispatch), kMaxGroupNameLength);
}

// Pods mode rendezvous, by Volcano's svc plugin's names: the job's headless
// Service is "<job>", replica i of task t is "<job>-<t>-<i>" in it, so its
// name in the namespace is "<job>-<t>-<i>.<job>". Names that are no DNS
// label are shortened with a hash (dns_label), the same way everywhere.
std::string service_name(const protocol::JobSpec& job) {
  return dns_label(job.name, "");
}

std::string pod_hostname(const protocol::JobSpec& job, std::size_t task, std::int32_t index) {
  return dns_label(job.name + "-" + job.tasks[task].name + "-" + std::to_string(index), "");
}

std::string host_name(const protocol::JobSpec& job, std::size_t task, std::int32_t index) {
  return pod_hostname(job, task, index) + "." + service_name(job);
}

ReplicaHosts gang_hosts(const protocol::JobSpec& job) {
  ReplicaHosts hosts(job.tasks.size());
  for (std::size_t t = 0; t < job.tasks.size(); ++t) {
    for (std::int32_t i = 0; i < job.tasks[t].replicas; ++i) hosts[t].push_back(host_name(job, t, i));
  }
  return hosts;
}

// ---------------------------------------------------------------- reading objects

const json& member(const json& object, const char* key) {
  static const json null;
  if (!object.is_object()) return null;
  const auto found = object.find(key);
  return found == object.end() ? null : *found;
}

std::string text(const json& object, const char* key) {
  const json& value = member(object, key);
  return value.is_string() ? value.get<std::string>() : "";
}

template <class Number>
std::optional<Number> parse_number(const std::string& value) {
  Number number{};
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (error != std::errc() || end != value.data() + value.size()) return std::nullopt;
  return number;
}

std::string status_message(const kube::Response& response) {
  return kube::http_failure(response.status, response.body);
}

// exitCode (and signal) of the first container that terminated; 1 when none says.
std::pair<int, int> failed_exit(const json& status) {
  const json& containers = member(status, "containerStatuses");
  if (containers.is_array()) {
    for (const json& container : containers) {
      const json& terminated = member(member(container, "state"), "terminated");
      const json& code = member(terminated, "exitCode");
      if (!code.is_number_integer()) continue;
      const json& signal = member(terminated, "signal");
      return {code.get<int>(), signal.is_number_integer() ? signal.get<int>() : 0};
    }
  }
  return {1, 0};
}

std::string node_of(const json& spec) {
  std::string node = text(spec, "nodeName");
  return node.empty() ? text(member(spec, "nodeSelector"), kHostnameLabel) : node;
}

std::int32_t int_or(const std::string& value, std::int32_t fallback) {
  return parse_number<std::int32_t>(value).value_or(fallback);
}

// Why a pod that has not ended does not run yet, as kubectl describe would
// say it: the scheduler's condition, else a container's waiting reason.
std::string waiting_reason(const json& pod) {
  const json& status = member(pod, "status");
  if (const json& conditions = member(status, "conditions"); conditions.is_array()) {
    for (const json& condition : conditions) {
      if (text(condition, "type") != "PodScheduled" || text(condition, "status") != "False") continue;
      const std::string message = text(condition, "message");
      return text(condition, "reason") + (message.empty() ? "" : ": " + message);
    }
  }
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    const json& containers = member(status, list);
    if (!containers.is_array()) continue;
    for (const json& container : containers) {
      const json& waiting = member(member(container, "state"), "waiting");
      const std::string reason = text(waiting, "reason");
      if (reason.empty()) continue;
      const std::string message = text(waiting, "message");
      return text(container, "name") + ": " + reason + (message.empty() ? "" : ": " + message);
    }
  }
  return node_of(member(pod, "spec")).empty() ? "waiting for a node" : "starting";
}

// ---------------------------------------------------------------- manifests

// ReplicaLaunch names the part of the dispatch once agent_core passes it;
// until then a launch counts as the whole dispatch.
template <class Launch>
std::pair<std::int32_t, std::int32_t> part_of(const Launch& launch) {
  if constexpr (requires {
                  launch.part;
                  launch.parts;
                }) {
    return {launch.part, launch.parts};
  } else {
    return {0, 1};
  }
}

const protocol::TaskSpec& task_of(const ReplicaLaunch& launch) {
  return launch.job->tasks.at(launch.task);
}

json part_labels(const KubernetesExecutorOptions& options, const ReplicaLaunch& launch) {
  return {{kAgentLabel, options.agent_identity},
          {kJobLabel, label_value(launch.job->name)},
          {kDispatchLabel, std::to_string(launch.key.dispatch)},
          {kPartLabel, std::to_string(part_of(launch).first)}};
}

json replica_labels(const KubernetesExecutorOptions& options, const ReplicaLaunch& launch) {
  json labels = part_labels(options, launch);
  labels[kRankLabel] = std::to_string(launch.key.rank);
  labels[kTaskLabel] = label_value(task_of(launch).name);
  labels[kPodGroupLabel] = group_name(launch.job->name, launch.key.dispatch);
  return labels;
}

json replica_annotations(const ReplicaLaunch& launch) {
  return {{kPartsAnnotation, std::to_string(part_of(launch).second)},
          {kJobAnnotation, launch.job->name},
          {kTaskAnnotation, task_of(launch).name},
          {kTaskIndexAnnotation, std::to_string(launch.index)}};
}

// What every container of the replica is told about itself (RANK, WORLD_SIZE,
// MASTER_ADDR, GANTRY_*): replica_environment without a container's env,
// which each container brings from its own spec instead. `master_addr`: where
// a gang held by this one cluster meets (rank 0's name).
std::vector<std::pair<std::string, std::string>> identity_environment(
    const ReplicaLaunch& launch, const std::string& master_addr) {
  protocol::JobSpec names;
  names.name = launch.job->name;
  names.tasks.resize(launch.task + 1);
  names.tasks[launch.task].name = task_of(launch).name;
  ReplicaLaunch bare = launch;
  bare.job = &names;
  // One cluster: the gang meets at rank 0's pod, by the name its Service gives it.
  if (launch.parts <= 1) bare.master_addr = master_addr;
  std::vector<std::pair<std::string, std::string>> env;
  for (const std::string& entry : replica_environment(bare, nullptr)) {
    const std::size_t equals = entry.find('=');
    env.emplace_back(entry.substr(0, equals), entry.substr(equals + 1));
  }
  return env;
}

using Identity = std::vector<std::pair<std::string, std::string>>;

// A container of the template with Gantry's identity env added to its own
// (entries of the same name are Gantry's; valueFrom and the rest are kept).
void add_identity(json& container, const Identity& identity) {
  auto overridden = [&](const json& var) {
    const std::string name = text(var, "name");
    return std::any_of(identity.begin(), identity.end(),
                       [&](const auto& entry) { return entry.first == name; });
  };
  json env = json::array();
  if (const json& own = member(container, "env"); own.is_array()) {
    for (const json& var : own)
      if (!overridden(var)) env.push_back(var);
  }
  for (const auto& [name, value] : identity) env.push_back({{"name", name}, {"value", value}});
  container["env"] = std::move(env);
}

json resource_list(const protocol::ResourceList& resources) {
  json out = json::object();
  for (const auto& [name, milli] : resources) out[name] = hub::format_quantity(name, milli);
  return out;
}

// A job built without a manifest (tests, the simulator's specs) has no
// template: its containers are made from what the spec models.
json container_json(const protocol::ContainerSpec& container, std::size_t index) {
  json out = {{"name", container.name.empty()
                           ? (index == 0 ? std::string("main") : "main-" + std::to_string(index))
                           : container.name},
              {"image", container.image}};
  if (!container.command.empty()) out["command"] = container.command;
  if (!container.args.empty()) out["args"] = container.args;
  json env = json::array();
  for (const protocol::EnvVar& var : container.env)
    env.push_back({{"name", var.name}, {"value", var.value}});
  out["env"] = std::move(env);
  json resources = json::object();
  if (!container.requests.empty()) resources["requests"] = resource_list(container.requests);
  if (!container.limits.empty()) resources["limits"] = resource_list(container.limits);
  if (!resources.empty()) out["resources"] = std::move(resources);
  return out;
}

// The task's pod template as submitted ({"metadata", "spec"}), or one made
// from the modelled fields when the job came without one.
json template_of(const protocol::TaskSpec& task) {
  json object = task.pod_template.empty() ? json::object()
                                          : json::parse(task.pod_template, nullptr, false);
  if (!object.is_object()) object = json::object();
  if (!object.contains("metadata") || !object["metadata"].is_object())
    object["metadata"] = json::object();
  if (!object.contains("spec") || !object["spec"].is_object()) object["spec"] = json::object();
  json& spec = object["spec"];
  if (task.pod_template.empty()) {
    json containers = json::array();
    for (std::size_t i = 0; i < task.containers.size(); ++i)
      containers.push_back(container_json(task.containers[i], i));
    spec["containers"] = std::move(containers);
    json selector = json::object();
    for (const auto& [key, value] : task.node_selector) selector[key] = value;
    if (!selector.empty()) spec["nodeSelector"] = std::move(selector);
  }
  return object;
}

// Where the pod runs: the node the agent admitted it on. Bound directly
// (nodeName skips the scheduler) unless a scheduler is named, which gets a
// node selector on the node's kubernetes.io/hostname label (which need not
// be its name).
void place(json& spec, const KubernetesExecutorOptions& options, const ReplicaLaunch& launch) {
  json selector = spec.contains("nodeSelector") && spec["nodeSelector"].is_object()
                      ? spec["nodeSelector"]
                      : json::object();
  if (!options.scheduler_name.empty()) spec["schedulerName"] = options.scheduler_name;
  if (!launch.node.empty()) {
    if (options.scheduler_name.empty()) {
      spec["nodeName"] = launch.node;
    } else {
      selector[kHostnameLabel] = launch.node_hostname.empty() ? launch.node : launch.node_hostname;
    }
  }
  if (!selector.empty()) spec["nodeSelector"] = std::move(selector);
}

// What Volcano's plugins give a bare Pod, always with the svc plugin's
// VC_<TASK>_HOSTS / VC_<TASK>_NUM (the pods' names resolve through the job's
// headless Service). `with_svc` and `hosts`: the run's job with svc on and
// every replica's name (KubernetesExecutor::gang_names, made once per run).
PluginOutput replica_plugins(const ReplicaLaunch& launch, const protocol::JobSpec& with_svc,
                             const ReplicaHosts& hosts) {
  PluginReplica replica;
  replica.job = &with_svc;
  replica.task = launch.task;
  replica.index = launch.index;
  replica.hosts = &hosts;
  replica.master_port = launch.master_port;
  return plugin_output(replica, nullptr);
}

// After Gantry's identity, replacing a name both set: Volcano appends its env.
void add_plugin_env(std::vector<protocol::EnvVar> env, Identity& identity) {
  for (protocol::EnvVar& var : env) {
    std::erase_if(identity, [&](const auto& entry) { return entry.first == var.name; });
    identity.emplace_back(std::move(var.name), std::move(var.value));
  }
}

// A plugin's command and ports (ray's), as Volcano's OnPodCreate sets them:
// the command replaced, the args kept, a port added unless one of its
// number is there.
void apply_container_change(json& container, const ContainerChange& change) {
  if (!change.command.empty()) container["command"] = change.command;
  if (change.ports.empty()) return;
  json& ports = container["ports"];
  if (!ports.is_array()) ports = json::array();
  for (const PluginPort& port : change.ports) {
    const bool open = std::any_of(ports.begin(), ports.end(), [&](const json& own) {
      return own.is_object() && own.value("containerPort", -1) == port.number;
    });
    if (!open) ports.push_back({{"name", port.name}, {"containerPort", port.number}});
  }
}

// The template's spec with what Gantry sets: identity env in every
// container, restartPolicy Never (Gantry decides retries from the job's
// maxRetry, not the kubelet), the node, and in pods mode the host name and
// subdomain that make the rendezvous names resolve.
json pod_spec(const KubernetesExecutorOptions& options, const ReplicaLaunch& launch, json spec,
              const protocol::JobSpec& with_svc, const ReplicaHosts& hosts) {
  Identity identity = identity_environment(launch, host_name(*launch.job, 0, 0));
  PluginOutput plugins = replica_plugins(launch, with_svc, hosts);
  add_plugin_env(std::move(plugins.env), identity);
  if (json& containers = spec["containers"]; containers.is_array()) {
    for (json& container : containers) {
      add_identity(container, identity);
      if (const ContainerChange* change = change_for(plugins.containers, text(container, "name")))
        apply_container_change(container, *change);
    }
  }
  spec["restartPolicy"] = "Never";
  place(spec, options, launch);
  spec["hostname"] = pod_hostname(*launch.job, launch.task, launch.index);
  spec["subdomain"] = service_name(*launch.job);
  return spec;
}

// The template's labels and annotations with Gantry's added (Gantry's win
// on a clash: they are how pods map back to replicas).
json merged_metadata(const json& own, const json& labels, const json& annotations) {
  json metadata = json::object();
  for (const char* key : {"labels", "annotations"}) {
    json merged = own.contains(key) && own[key].is_object() ? own[key] : json::object();
    merged.update(std::string(key) == "labels" ? labels : annotations);
    metadata[key] = std::move(merged);
  }
  return metadata;
}

std::string pod_name(const ReplicaLaunch& launch) {
  return dns_label(launch.job->name, "-" + std::to_string(launch.key.dispatch) + "-" +
                                         std::to_string(launch.key.rank));
}

std::string member_queue(const KubernetesExecutorOptions& options, const ReplicaLaunch& launch) {
  return launch.member_queue.empty() ? options.member_queue : launch.member_queue;
}

// ---------------------------------------------------------------- plugin files (pods mode)

constexpr const char* kVolcanoDir = "/etc/volcano";
constexpr const char* kVolcanoVolume = "gantry-volcano";
constexpr const char* kSshVolume = "gantry-ssh";
constexpr int kSshFileMode = 0600;

// Plugin files go into an object's data under their own names (a ConfigMap's
// or Secret's key: letters, digits, '-', '_', '.'), so a volume item maps each back.
json volume_items(const std::vector<std::string>& files) {
  json items = json::array();
  for (const std::string& file : files) items.push_back({{"key", file}, {"path", file}});
  return items;
}

void mount_plugin_files(json& spec, const PluginMounts& mounts) {
  if (mounts.config_map.empty() && mounts.secret.empty()) return;
  json& volumes = spec["volumes"];
  if (!volumes.is_array()) volumes = json::array();
  json mount_list = json::array();
  if (!mounts.config_map.empty()) {
    volumes.push_back({{"name", kVolcanoVolume},
                       {"configMap",
                        {{"name", mounts.config_map}, {"items", volume_items(mounts.volcano_files)}}}});
    mount_list.push_back({{"name", kVolcanoVolume}, {"mountPath", kVolcanoDir}, {"readOnly", true}});
  }
  if (!mounts.secret.empty()) {
    volumes.push_back({{"name", kSshVolume},
                       {"secret",
                        {{"secretName", mounts.secret},
                         {"defaultMode", kSshFileMode},
                         {"items", volume_items(mounts.ssh_files)}}}});
    mount_list.push_back({{"name", kSshVolume}, {"mountPath", mounts.ssh_dir}, {"readOnly", true}});
  }
  if (json& containers = spec["containers"]; containers.is_array()) {
    for (json& container : containers) {
      json& own = container["volumeMounts"];
      if (!own.is_array()) own = json::array();
      for (const json& mount : mount_list) own.push_back(mount);
    }
  }
}

json pod_manifest(const KubernetesExecutorOptions& options, const ReplicaLaunch& launch,
                  const PluginMounts& mounts, const protocol::JobSpec& with_svc,
                  const ReplicaHosts& hosts) {
  json object = template_of(task_of(launch));
  json annotations = replica_annotations(launch);
  // Volcano's scheduler reads a bare pod's queue here.
  if (const std::string queue = member_queue(options, launch); !queue.empty())
    annotations["scheduling.volcano.sh/queue-name"] = queue;
  json metadata =
      merged_metadata(object["metadata"], replica_labels(options, launch), annotations);
  metadata["name"] = pod_name(launch);
  metadata["namespace"] = options.namespace_;
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", std::move(metadata)},
          {"spec", [&] {
             json spec = pod_spec(options, launch, std::move(object["spec"]), with_svc, hosts);
             mount_plugin_files(spec, mounts);
             return spec;
           }()}};
}

// The job's headless Service: it gives each pod of the run its
// "<hostname>.<subdomain>" name (cluster DNS publishes the pods a headless
// Service selects), before they are ready, as the rendezvous needs.
json service_manifest(const KubernetesExecutorOptions& options, const ReplicaLaunch& launch) {
  const json selector = {{kAgentLabel, options.agent_identity},
                         {kDispatchLabel, std::to_string(launch.key.dispatch)}};
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata",
           {{"name", service_name(*launch.job)},
            {"namespace", options.namespace_},
            {"labels", part_labels(options, launch)},
            {"annotations", {{kJobAnnotation, launch.job->name}}}}},
          {"spec",
           {{"clusterIP", "None"},
            {"publishNotReadyAddresses", true},
            {"selector", selector},
            {"ports", json::array({{{"name", "rendezvous"}, {"port", launch.master_port}}})}}}};
}

// ---------------------------------------------------------------- Volcano mode

// The part's Volcano Job keeps the job's task names: Volcano's plugins find
// tasks by them (pytorch's --master / --worker, mpi's master / worker,
// tensorflow's ps / worker), and its svc plugin names replica i of task t
// "<vjob>-<t>-<i>.<vjob>", the names VC_<T>_HOSTS and TF_CONFIG carry.
std::string volcano_host(const std::string& volcano_job, const std::string& task,
                         std::int32_t index) {
  return volcano_job + "-" + task + "-" + std::to_string(index) + "." + volcano_job;
}

// What every pod of a task is told, the same for each (a Volcano task has one
// template): Gantry's identity without what differs per replica. Volcano's
// env plugin (always on) gives the index (VC_TASK_INDEX); with the job's
// pytorch plugin, RANK, MASTER_ADDR, MASTER_PORT and WORLD_SIZE are Volcano's.
Identity volcano_task_identity(const ReplicaLaunch& launch, const std::string& master_addr) {
  Identity identity = identity_environment(launch, master_addr);
  const bool pytorch = launch.job->plugins.contains("pytorch");
  std::erase_if(identity, [&](const auto& entry) {
    const std::string& name = entry.first;
    if (name == "RANK" || name == "GANTRY_REPLICA_INDEX" || name == "GANTRY_NODE") return true;
    return pytorch && (name == "MASTER_ADDR" || name == "MASTER_PORT" || name == "WORLD_SIZE");
  });
  return identity;
}

// GANTRY_NODE: the node Volcano's scheduler picked, through the downward API.
void add_node_name(json& container) {
  json& env = container["env"];
  env.erase(std::remove_if(env.begin(), env.end(),
                          [](const json& var) { return text(var, "name") == "GANTRY_NODE"; }),
            env.end());
  env.push_back({{"name", "GANTRY_NODE"},
                 {"valueFrom", {{"fieldRef", {{"fieldPath", "spec.nodeName"}}}}}});
}

// The Job's task for the job's task launch.task, its template built from
// `launch` (the part's first replica of it, whose index is the task's first
// here). Volcano places the pods: no node is named.
json volcano_task(const KubernetesExecutorOptions& options, const ReplicaLaunch& launch,
                  const std::string& master_addr) {
  const protocol::TaskSpec& task = task_of(launch);
  json object = template_of(task);
  json labels = part_labels(options, launch);
  labels[kTaskLabel] = label_value(task.name);
  const json annotations = {{kPartsAnnotation, std::to_string(part_of(launch).second)},
                            {kJobAnnotation, launch.job->name},
                            {kTaskAnnotation, task.name},
                            {kTaskOrderAnnotation, std::to_string(launch.task)},
                            {kFirstIndexAnnotation, std::to_string(launch.index)}};
  json metadata = merged_metadata(object["metadata"], labels, annotations);
  json spec = std::move(object["spec"]);
  const Identity identity = volcano_task_identity(launch, master_addr);
  if (json& containers = spec["containers"]; containers.is_array()) {
    for (json& container : containers) {
      add_identity(container, identity);
      add_node_name(container);
    }
  }
  spec["restartPolicy"] = "Never";
  json out = {{"name", task.name},
              {"replicas", 0},
              {"template", {{"metadata", std::move(metadata)}, {"spec", std::move(spec)}}}};
  // Volcano's controller makes the task's pods once the tasks it names run.
  if (!task.depends_on.names.empty()) {
    out["dependsOn"] = {{"name", task.depends_on.names}};
    if (!task.depends_on.iteration.empty())
      out["dependsOn"]["iteration"] = task.depends_on.iteration;
  }
  return out;
}

// The part's Job with every task of the job, none of them with replicas yet.
json volcano_job_manifest(const KubernetesExecutorOptions& options, const ReplicaLaunch& launch,
                          const std::string& name, const std::string& master_addr) {
  json tasks = json::array();
  for (std::uint32_t t = 0; t < launch.job->tasks.size(); ++t) {
    ReplicaLaunch first = launch;
    first.task = t;
    first.index = 0;
    tasks.push_back(volcano_task(options, first, master_addr));
  }
  json manifest = {{"apiVersion", kVolcanoGroupVersion},
                   {"kind", "Job"},
                   {"metadata",
                    {{"name", name},
                     {"namespace", options.namespace_},
                     {"labels", part_labels(options, launch)},
                     {"annotations",
                      {{kPartsAnnotation, std::to_string(part_of(launch).second)},
                       {kJobAnnotation, launch.job->name}}}}},
                   {"spec",
                    {{"schedulerName", kVolcanoScheduler},
                     {"minAvailable", 0},  // set by started_all(), once every replica is in
                     {"tasks", std::move(tasks)}}}};
  // Volcano's controller runs the job's plugins, with the arguments as given;
  // its svc plugin always, so that the pods' names resolve (MASTER_ADDR), and
  // its env plugin, so that each pod knows its index (VC_TASK_INDEX).
  std::map<std::string, std::vector<std::string>> plugins = launch.job->plugins;
  plugins.try_emplace("svc");
  plugins.try_emplace("env");
  manifest["spec"]["plugins"] = plugins;
  if (const std::string queue = member_queue(options, launch); !queue.empty())
    manifest["spec"]["queue"] = queue;
  return manifest;
}

// Volcano's names: each task's pods are "<vjob>-<task>-<index>", a DNS-1123
// label (Volcano's admission refuses others).
std::string volcano_task_name_problem(const protocol::JobSpec& job) {
  for (std::size_t t = 0; t < job.tasks.size(); ++t) {
    const protocol::TaskSpec& task = job.tasks[t];
    const std::string field = "spec.tasks[" + std::to_string(t) + "].name";
    if (task.name.empty() || dns_label(task.name, "") != task.name) {
      return field + ": '" + task.name +
             "' is no DNS-1123 label, which the member's Volcano needs: in Volcano Job mode "
             "the job keeps its task names (Volcano's plugins find tasks by them)";
    }
    const std::size_t pod_name = kMaxGroupNameLength + 1 + task.name.size() + 1 +
                                 std::to_string(std::max(task.replicas - 1, 0)).size();
    if (pod_name > kMaxLabelLength) {
      return field + ": '" + task.name + "' is too long for Volcano's pod names "
             "(<job>-<dispatch>-<task>-<index>, at most " + std::to_string(kMaxLabelLength) +
             " characters, the job's part taking up to " + std::to_string(kMaxGroupNameLength) + ")";
    }
  }
  return "";
}

bool resolve_volcano(kube::Client& client, KubernetesExecutorOptions::Mode mode) {
  using Mode = KubernetesExecutorOptions::Mode;
  if (mode != Mode::kAuto) return mode == Mode::kVolcanoJob;
  const kube::Response discovery = client.get(std::string("/apis/") + kVolcanoGroupVersion);
  return discovery.status == 200;
}

void validate(const KubernetesExecutorOptions& options) {
  if (options.agent_identity.empty() || !is_label_value(options.agent_identity)) {
    throw hub::FieldError("agent identity", options.agent_identity,
                          "must be a Kubernetes label value (at most 63 letters, digits, '-', "
                          "'_' or '.', starting and ending with a letter or digit)");
  }
  if (options.namespace_ != dns_label(options.namespace_, "")) {
    throw hub::FieldError("namespace", options.namespace_, "must be a DNS-1123 label");
  }
}

}  // namespace

// The pod's name and replica, or nullopt when its labels name none (not one of Gantry's).
std::optional<std::pair<std::string, KubernetesExecutor::PodView>> KubernetesExecutor::read_pod(
    const json& pod) {
  const json& metadata = member(pod, "metadata");
  const json& labels = member(metadata, "labels");
  const json& annotations = member(metadata, "annotations");
  const auto dispatch = parse_number<DispatchId>(text(labels, kDispatchLabel));
  const auto rank = parse_number<std::uint32_t>(text(labels, kRankLabel));
  const std::string name = text(metadata, "name");
  if (!dispatch || name.empty()) return std::nullopt;
  PodView view;
  Adopted& replica = view.replica;
  if (rank) {
    replica.key = ReplicaKey{*dispatch, *rank};
    replica.task_index = int_or(text(annotations, kTaskIndexAnnotation), 0);
  } else {
    view.slot = volcano_slot(pod, *dispatch);
    if (!view.slot) return std::nullopt;
    view.resolved = false;
    replica.key = ReplicaKey{*dispatch, 0};
    replica.task_index = int_or(text(annotations, kFirstIndexAnnotation), 0) + view.slot->index;
  }
  replica.job = text(annotations, kJobAnnotation);
  if (replica.job.empty()) replica.job = text(labels, kJobLabel);
  replica.task = text(annotations, kTaskAnnotation);
  if (replica.task.empty()) replica.task = text(labels, kTaskLabel);
  replica.node = node_of(member(pod, "spec"));
  replica.part = int_or(text(labels, kPartLabel), 0);
  replica.parts = int_or(text(annotations, kPartsAnnotation), 1);
  const std::string phase = text(member(pod, "status"), "phase");
  if (phase == "Succeeded") {
    replica.ended = true;
  } else if (phase == "Failed") {
    replica.ended = true;
    std::tie(replica.exit_code, view.signal) = failed_exit(member(pod, "status"));
  }
  view.volcano_job = text(labels, kVolcanoJobNameLabel);
  view.log_container = text(annotations, kDefaultContainerAnnotation);
  const json& containers = member(member(pod, "spec"), "containers");
  if (view.log_container.empty() && containers.is_array() && !containers.empty())
    view.log_container = text(containers.front(), "name");
  view.running = phase == "Running";
  if (!replica.ended && !view.running) view.waiting = waiting_reason(pod);
  return std::pair{name, std::move(view)};
}

// A pod Volcano made for a task of a part's Job: the task's number from its
// template, the index from the pod's name "<vjob>-<task>-<index>" (as
// Volcano's own plugins read it).
std::optional<KubernetesExecutor::VolcanoSlot> KubernetesExecutor::volcano_slot(
    const json& pod, DispatchId dispatch) {
  const json& metadata = member(pod, "metadata");
  if (text(member(metadata, "labels"), kVolcanoJobNameLabel).empty()) return std::nullopt;
  const auto task = parse_number<std::uint32_t>(
      text(member(metadata, "annotations"), kTaskOrderAnnotation));
  const std::string name = text(metadata, "name");
  const std::size_t dash = name.rfind('-');
  if (!task || dash == std::string::npos) return std::nullopt;
  const auto index = parse_number<std::int32_t>(name.substr(dash + 1));
  if (!index) return std::nullopt;
  return VolcanoSlot{dispatch, *task, *index};
}

// Under mutex_.
bool KubernetesExecutor::resolve(PodView& view) const {
  if (view.resolved) return true;
  const auto found = volcano_ranks_.find(*view.slot);
  if (found == volcano_ranks_.end()) return false;
  view.replica.key.rank = found->second;
  view.resolved = true;
  return true;
}

// ---------------------------------------------------------------- the executor

KubernetesExecutor::KubernetesExecutor(kube::Client& client, KubernetesExecutorOptions options)
    : client_(client), options_(std::move(options)) {
  validate(options_);
  volcano_ = resolve_volcano(client_, options_.mode);
  spdlog::info("kubernetes executor: namespace {}, agent {}, {}", options_.namespace_,
               options_.agent_identity,
               volcano_ ? "one Volcano Job per part" : "one Pod per replica");
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  const std::string selector =
      kube::encode_query_value(std::string(kAgentLabel) + "=" + options_.agent_identity);
  reflector_ = std::make_unique<kube::Reflector>(
      client_, pods_path() + "?labelSelector=" + selector,
      kube::Reflector::Handlers{
          .on_list = [this](const std::vector<json>& pods) { on_list(pods); },
          .on_event = [this](const std::string& type, const json& pod) { on_event(type, pod); }});
  reflector_->start();
}

KubernetesExecutor::~KubernetesExecutor() {
  shutdown();
  ::close(wake_fd_);
}

std::string KubernetesExecutor::check(const protocol::JobSpec& job) const {
  if (std::string why = check_plugins(job); !why.empty()) return why;
  if (volcano_) {
    if (std::string why = volcano_task_name_problem(job); !why.empty()) return why;
  }
  for (std::size_t t = 0; t < job.tasks.size(); ++t) {
    const std::string field = "spec.tasks[" + std::to_string(t) + "].template.spec.containers";
    const auto& containers = job.tasks[t].containers;
    if (containers.empty()) return field + ": a pod needs at least one container";
    for (std::size_t c = 0; c < containers.size(); ++c) {
      if (containers[c].image.empty()) {
        return field + "[" + std::to_string(c) + "].image: the kubernetes executor needs an image";
      }
    }
  }
  return "";
}

std::string KubernetesExecutor::check_split(const protocol::JobSpec& job,
                                            std::int32_t parts) const {
  if (parts <= 1) return "";
  // In either mode: its workers join the head by a name only its cluster resolves.
  if (job.plugins.contains("ray")) {
    return "a gang split over " + std::to_string(parts) +
           " clusters cannot use Volcano's ray plugin: every worker joins the head by its "
           "name, which resolves only in the head's cluster";
  }
  if (volcano_) {
    for (const char* plugin : {"pytorch", "tensorflow", "mpi"}) {
      if (!job.plugins.contains(plugin)) continue;
      return std::string("a gang split over ") + std::to_string(parts) +
             " clusters cannot use Volcano's " + plugin +
             " plugin: the member's Volcano would give its pods a world of this cluster's "
             "share only";
    }
  }
  if (options_.cross_cluster_rendezvous) return "";
  return "a gang split over " + std::to_string(parts) +
         " clusters has no rendezvous here: rank 0's pod is in another cluster and its name "
         "does not resolve in this one (run the agent with --cross-cluster-rendezvous where "
         "pods reach across clusters)";
}

std::string KubernetesExecutor::pods_path() const {
  return "/api/v1/namespaces/" + options_.namespace_ + "/pods";
}

std::string KubernetesExecutor::volcano_jobs_path() const {
  return std::string("/apis/") + kVolcanoGroupVersion + "/namespaces/" + options_.namespace_ +
         "/jobs";
}

void KubernetesExecutor::start(const ReplicaLaunch& launch, TimeMs) {
  {
    std::lock_guard lock(mutex_);
    started_here_.insert(launch.key.dispatch);
  }
  if (volcano_) {
    record_volcano_replica(launch);
  } else {
    start_pod(launch);
  }
}

// Creates the pod. The replica is known before the POST, as its first watch
// event may come before the answer.
void KubernetesExecutor::start_pod(const ReplicaLaunch& launch) {
  ensure_service(launch);
  const GangNames& names = gang_names(launch);
  const json manifest = pod_manifest(options_, launch, plugin_mounts(launch, names), names.with_svc,
                                     names.hosts);
  const std::string name = manifest["metadata"]["name"];
  {
    std::lock_guard lock(mutex_);
    replicas_[launch.key] = Replica{.pod = name};
    note_object(launch.key.dispatch, name, "");
  }
  const std::string failure = create(pods_path(), name, manifest);
  std::lock_guard lock(mutex_);
  if (!failure.empty()) {
    replicas_.erase(launch.key);
    throw std::runtime_error("create pod " + options_.namespace_ + "/" + name + ": " + failure);
  }
  if (const auto found = replicas_.find(launch.key); found != replicas_.end()) {
    found->second.created = true;
  }
}

// POSTs `object` under `collection`; returns why it failed, "" once created.
// An object whose answer was lost may have been created: it is deleted, so
// that nothing runs unseen.
std::string KubernetesExecutor::create(const std::string& collection, const std::string& name,
                                       const json& object) {
  try {
    const kube::Response response = client_.post(collection, object.dump());
    return response.ok() ? "" : status_message(response);
  } catch (const std::exception& error) {
    try {
      client_.remove(collection + "/" + name);
    } catch (const std::exception&) {
    }
    return error.what();
  }
}

// The run's headless Service, made once per run: a Service left by an
// earlier run of the same job is pointed at this one (its pods have new
// dispatch labels), so that the names never resolve to an old attempt's pods.
void KubernetesExecutor::ensure_service(const ReplicaLaunch& launch) {
  const json manifest = service_manifest(options_, launch);
  const std::string name = manifest["metadata"]["name"];
  const auto known = services_.find(name);
  if (known != services_.end() && known->second == launch.key.dispatch) return;
  const std::string collection = "/api/v1/namespaces/" + options_.namespace_ + "/services";
  kube::Response response = client_.post(collection, manifest.dump());
  if (response.status == 409) {
    const json patch = {{"metadata", {{"labels", manifest["metadata"]["labels"]}}},
                        {"spec", {{"selector", manifest["spec"]["selector"]}}}};
    response = client_.patch(collection + "/" + name, patch.dump(), kube::PatchType::kMerge);
  }
  if (!response.ok())
    throw std::runtime_error("create service " + options_.namespace_ + "/" + name + ": " +
                             status_message(response));
  services_[name] = launch.key.dispatch;
  std::lock_guard lock(mutex_);
  runs_[launch.key.dispatch].service = name;
}

// The run's plugin files, made once per run (the ssh plugin's keys are the
// run's own): a ConfigMap of the svc plugin's host lists, a Secret of the ssh
// plugin's keys and config when the job asks for ssh.
PluginMounts KubernetesExecutor::plugin_mounts(const ReplicaLaunch& launch,
                                               const GangNames& names) {
  const DispatchId dispatch = launch.key.dispatch;
  if (const auto made = plugin_mounts_.find(dispatch); made != plugin_mounts_.end())
    return made->second;
  const protocol::JobSpec& with_svc = names.with_svc;
  const ReplicaHosts& hosts = names.hosts;
  PluginReplica replica;
  replica.job = &with_svc;
  replica.hosts = &hosts;
  replica.master_port = launch.master_port;
  const bool ssh = needs_ssh_keys(with_svc);
  const SshKeyPair keys = ssh ? ssh_keys_for(with_svc) : SshKeyPair{};
  const PluginOutput output = plugin_output(replica, ssh ? &keys : nullptr);
  json volcano = json::object();
  json secret = json::object();
  PluginMounts mounts;
  for (const PluginFile& file : output.files) {
    if (file.dir == PluginDir::kVolcano) {
      volcano[file.name] = file.content;
      mounts.volcano_files.push_back(file.name);
    } else {
      secret[file.name] = support::encode_base64(file.content);
      mounts.ssh_files.push_back(file.name);
    }
  }
  const std::string base = group_name(launch.job->name, dispatch);
  const json labels = part_labels(options_, launch);
  if (!volcano.empty()) {
    mounts.config_map = base + "-svc";
    create_or_fail("configmaps", {{"apiVersion", "v1"},
                                  {"kind", "ConfigMap"},
                                  {"metadata", {{"name", mounts.config_map}, {"labels", labels}}},
                                  {"data", volcano}});
  }
  if (!secret.empty()) {
    mounts.secret = base + "-ssh";
    mounts.ssh_dir = ssh_key_dir(with_svc);
    create_or_fail("secrets", {{"apiVersion", "v1"},
                               {"kind", "Secret"},
                               {"metadata", {{"name", mounts.secret}, {"labels", labels}}},
                               {"type", "Opaque"},
                               {"data", secret}});
  }
  {
    std::lock_guard lock(mutex_);
    RunObjects& run = runs_[dispatch];
    run.config_map = mounts.config_map;
    run.secret = mounts.secret;
  }
  return plugin_mounts_.emplace(dispatch, std::move(mounts)).first->second;
}

// The run's job with the svc plugin on and every replica's host name, made
// once per run: each replica's env and the run's plugin files read them (a
// copy of the job per replica, and every name per replica, made a gang's
// start quadratic in its size).
const KubernetesExecutor::GangNames& KubernetesExecutor::gang_names(const ReplicaLaunch& launch) {
  const auto made = gang_names_.find(launch.key.dispatch);
  if (made != gang_names_.end()) return made->second;
  GangNames names;
  names.with_svc = *launch.job;
  names.with_svc.plugins.try_emplace("svc");
  names.hosts = gang_hosts(names.with_svc);
  return gang_names_.emplace(launch.key.dispatch, std::move(names)).first->second;
}

void KubernetesExecutor::create_or_fail(const std::string& plural, json object) {
  object["metadata"]["namespace"] = options_.namespace_;
  const std::string name = object["metadata"]["name"];
  const std::string failure =
      create("/api/v1/namespaces/" + options_.namespace_ + "/" + plural, name, object);
  if (!failure.empty())
    throw std::runtime_error("create " + plural + " " + options_.namespace_ + "/" + name + ": " +
                             failure);
}

// Under mutex_.
void KubernetesExecutor::note_object(DispatchId dispatch, const std::string& pod,
                                     const std::string& volcano_job) {
  RunObjects& run = runs_[dispatch];
  run.pods.push_back(pod);
  if (!volcano_job.empty()) run.volcano_job = volcano_job;
  ++run.live;
}

// The replica is the next index of its task in the part's Job (the Job is
// made, or its task raised, by started_all()).
void KubernetesExecutor::record_volcano_replica(const ReplicaLaunch& launch) {
  VolcanoRun& run = volcano_runs_[launch.key.dispatch];
  const std::uint32_t task = launch.task;
  if (run.name.empty()) {
    run.name = group_name(launch.job->name, launch.key.dispatch);
    run.master_addr = volcano_host(run.name, task_of(launch).name, 0);  // rank 0 comes first
    run.manifest = volcano_job_manifest(options_, launch, run.name, run.master_addr);
    run.replicas.assign(launch.job->tasks.size(), 0);
    run.applied = run.replicas;
  }
  if (!run.created && run.replicas[task] == 0)
    run.manifest["spec"]["tasks"][task] = volcano_task(options_, launch, run.master_addr);
  const VolcanoSlot slot{launch.key.dispatch, task, run.replicas[task]++};
  run.recorded.push_back(launch.key);
  const std::string pod = run.name + "-" + task_of(launch).name + "-" + std::to_string(slot.index);
  std::lock_guard lock(mutex_);
  replicas_[launch.key] = Replica{.pod = pod, .volcano_job = run.name, .slot = slot};
  volcano_ranks_[slot] = launch.key.rank;
  note_object(launch.key.dispatch, pod, run.name);
}

namespace {

std::int32_t total_replicas(const std::vector<std::int32_t>& replicas) {
  std::int32_t total = 0;
  for (std::int32_t count : replicas) total += count;
  return total;
}

}  // namespace

// "" once the API server has the Job.
std::string KubernetesExecutor::create_volcano_job(VolcanoRun& run) {
  json& spec = run.manifest["spec"];
  for (std::size_t t = 0; t < run.replicas.size(); ++t) spec["tasks"][t]["replicas"] = run.replicas[t];
  spec["minAvailable"] = total_replicas(run.replicas);
  const std::string failure = create(volcano_jobs_path(), run.name, run.manifest);
  if (!failure.empty()) return failure;
  run.created = true;
  run.applied = run.replicas;
  run.manifest = nullptr;
  return "";
}

// Each task's replicas as `run` wants them: Volcano makes the pods of indices
// it did not have and deletes those at or above the new count. The gang is
// every replica of the part (minAvailable).
std::string KubernetesExecutor::scale_volcano_job(VolcanoRun& run) {
  json patch = json::array();
  for (std::size_t t = 0; t < run.replicas.size(); ++t) {
    if (run.replicas[t] == run.applied[t]) continue;
    // A task's own minAvailable (Volcano defaults it to its replicas) must
    // not exceed them; "add" sets a member whether it was there or not.
    const std::string task = "/spec/tasks/" + std::to_string(t);
    patch.push_back({{"op", "replace"}, {"path", task + "/replicas"}, {"value", run.replicas[t]}});
    patch.push_back({{"op", "add"}, {"path", task + "/minAvailable"}, {"value", run.replicas[t]}});
  }
  if (patch.empty()) return "";
  patch.push_back(
      {{"op", "replace"}, {"path", "/spec/minAvailable"}, {"value", total_replicas(run.replicas)}});
  try {
    const kube::Response response =
        client_.patch(volcano_jobs_path() + "/" + run.name, patch.dump(), kube::PatchType::kJson);
    if (!response.ok()) return status_message(response);
  } catch (const std::exception& error) {
    return error.what();
  }
  run.applied = run.replicas;
  return "";
}

void KubernetesExecutor::started_all(DispatchId dispatch, TimeMs) {
  const auto found = volcano_runs_.find(dispatch);
  if (found == volcano_runs_.end() || found->second.recorded.empty()) return;
  VolcanoRun& run = found->second;
  const bool adding = run.created;
  const std::string failure = adding ? scale_volcano_job(run) : create_volcano_job(run);
  const std::vector<ReplicaKey> recorded = std::move(run.recorded);
  run.recorded.clear();
  if (!failure.empty()) {
    spdlog::error("{} Volcano Job {}/{}: {}: its {} new replica(s) end with exit {}",
                  adding ? "scale" : "create", options_.namespace_, run.name, failure,
                  recorded.size(), kCouldNotStartExitCode);
    if (adding) {
      run.replicas = run.applied;
    } else {
      volcano_runs_.erase(found);
    }
  }
  std::lock_guard lock(mutex_);
  for (const ReplicaKey& key : recorded) {
    const auto replica = replicas_.find(key);
    if (replica == replicas_.end()) continue;
    // Every replica already counts as started: each gets its exit, and the
    // part fails through them (started_all does not throw).
    if (failure.empty()) {
      replica->second.created = true;
    } else {
      queue_exit(key, kCouldNotStartExitCode, 0);
    }
  }
}

void KubernetesExecutor::kill(const ReplicaKey& key) {
  if (volcano_) {
    kill_volcano_replica(key);
    return;
  }
  Replica replica;
  {
    std::lock_guard lock(mutex_);
    const auto found = replicas_.find(key);
    if (found == replicas_.end() || !found->second.created) {
      // Never created (or already ended: the agent ignores a second report).
      queue_exit(key, kKilledExitCode, SIGKILL);
      return;
    }
    found->second.kill_requested = true;
    replica = found->second;
  }
  kube::Response response;
  try {
    response = client_.remove(pods_path() + "/" + replica.pod);
  } catch (const std::exception& error) {
    spdlog::error("kubernetes executor: kill: delete pod {}/{}: {}", options_.namespace_,
                  replica.pod, error.what());
  }
  if (response.status == 404) {
    // Gone before the watch saw it: nothing will report it.
    std::lock_guard lock(mutex_);
    const auto found = replicas_.find(key);
    if (found != replicas_.end() && !found->second.seen) queue_exit(key, kKilledExitCode, SIGKILL);
  } else if (response.status != 0 && !response.ok()) {
    spdlog::error("kubernetes executor: kill: delete pod {}/{}: {}", options_.namespace_,
                  replica.pod, status_message(response));
  }
}

// Volcano makes a pod that goes missing again, so a pod is never deleted on
// its own. Kills are gathered until the next collect_exits(): the agent stops
// a whole part (or shrinks it) with one kill() per replica, and a part whose
// every replica is stopped goes with its Job, where one Job scale-down per
// shrink stops the others (Volcano deletes a task's highest indices).
void KubernetesExecutor::kill_volcano_replica(const ReplicaKey& key) {
  std::lock_guard lock(mutex_);
  const auto found = replicas_.find(key);
  if (found == replicas_.end() || !found->second.created) {
    // Never in the Job (or already ended: the agent ignores a second report).
    if (found != replicas_.end()) {
      if (const auto run = volcano_runs_.find(key.dispatch); run != volcano_runs_.end()) {
        std::erase(run->second.recorded, key);
        --run->second.replicas[found->second.slot->task];
      }
    }
    queue_exit(key, kKilledExitCode, SIGKILL);
    return;
  }
  if (found->second.kill_requested) return;
  found->second.kill_requested = true;
  volcano_kills_.push_back(key);
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t ignored = ::write(wake_fd_, &one, sizeof one);
}

// Agent thread, from collect_exits().
void KubernetesExecutor::apply_volcano_kills() {
  std::map<DispatchId, std::vector<VolcanoSlot>> stopped;
  std::set<DispatchId> whole_parts;
  {
    std::lock_guard lock(mutex_);
    for (const ReplicaKey& key : volcano_kills_) {
      const auto found = replicas_.find(key);
      if (found != replicas_.end()) stopped[key.dispatch].push_back(*found->second.slot);
    }
    volcano_kills_.clear();
    for (const auto& [dispatch, slots] : stopped) {
      const bool whole = std::none_of(replicas_.begin(), replicas_.end(), [&](const auto& entry) {
        return entry.first.dispatch == dispatch && !entry.second.kill_requested;
      });
      if (whole) whole_parts.insert(dispatch);
    }
  }
  for (const auto& [dispatch, slots] : stopped) {
    const auto run = volcano_runs_.find(dispatch);
    if (run == volcano_runs_.end()) {
      spdlog::error("kubernetes executor: kill: no Volcano Job known for dispatch {}", dispatch);
      continue;
    }
    if (whole_parts.contains(dispatch)) {
      delete_volcano_job(dispatch, run->second.name);
      volcano_runs_.erase(run);
      continue;
    }
    scale_down(run->second, slots);
  }
}

void KubernetesExecutor::scale_down(VolcanoRun& run, const std::vector<VolcanoSlot>& slots) {
  for (const VolcanoSlot& slot : slots) --run.replicas[slot.task];
  for (const VolcanoSlot& slot : slots) {
    if (slot.index < run.replicas[slot.task]) {
      spdlog::warn("kubernetes executor: Volcano scales task {} of Job {}/{} down from its "
                   "highest index, not {}: the agent stops a task's highest index first",
                   slot.task, options_.namespace_, run.name, slot.index);
    }
  }
  if (const std::string failure = scale_volcano_job(run); !failure.empty()) {
    spdlog::error("kubernetes executor: kill: scale Volcano Job {}/{} down: {}",
                  options_.namespace_, run.name, failure);
  }
}

// Its pods go with it (garbage collection). A Job already gone took its pods
// along: those the watch never showed are reported here.
void KubernetesExecutor::delete_volcano_job(DispatchId dispatch, const std::string& job) {
  int status = 0;
  try {
    const kube::Response response = client_.remove(volcano_jobs_path() + "/" + job);
    status = response.status;
    if (!response.ok() && response.status != 404) {
      spdlog::error("kubernetes executor: delete Volcano Job {}/{}: {}", options_.namespace_, job,
                    status_message(response));
    }
  } catch (const std::exception& error) {
    spdlog::error("kubernetes executor: delete Volcano Job {}/{}: {}", options_.namespace_, job,
                  error.what());
  }
  if (status != 404) return;
  std::lock_guard lock(mutex_);
  std::vector<ReplicaKey> unseen;
  for (const auto& [key, replica] : replicas_) {
    if (key.dispatch == dispatch && replica.kill_requested && !replica.seen) unseen.push_back(key);
  }
  for (const ReplicaKey& key : unseen) queue_exit(key, kKilledExitCode, SIGKILL);
}

void KubernetesExecutor::collect_exits(TimeMs, std::vector<ReplicaExit>& out) {
  // Reset the eventfd first: an exit queued after this signals it again.
  std::uint64_t signalled = 0;
  [[maybe_unused]] const ssize_t ignored = ::read(wake_fd_, &signalled, sizeof signalled);
  {
    std::lock_guard lock(mutex_);
    out.insert(out.end(), exits_.begin(), exits_.end());
    exits_.clear();
  }
  if (volcano_) {
    apply_volcano_kills();
    delete_recreating_volcano_jobs();
  }
  delete_ended_runs();
}

// Called before collect_exits() on the same wake-up (which resets the eventfd).
void KubernetesExecutor::collect_progress(std::vector<ReplicaProgress>& out) {
  std::lock_guard lock(mutex_);
  out.insert(out.end(), progress_.begin(), progress_.end());
  progress_.clear();
}

// A Volcano Job whose pod went outside Gantry would run it again: once its
// run has ended, it goes at once rather than after keep_ended newer runs.
void KubernetesExecutor::delete_recreating_volcano_jobs() {
  std::vector<std::pair<DispatchId, std::string>> jobs;
  {
    std::lock_guard lock(mutex_);
    for (auto& [dispatch, run] : runs_) {
      if (!run.volcano_recreates || run.live != 0) continue;
      run.volcano_recreates = false;
      jobs.emplace_back(dispatch, run.volcano_job);
    }
  }
  for (const auto& [dispatch, job] : jobs) {
    spdlog::info("kubernetes executor: deleting Volcano Job {}/{} of an ended run: one of its pods "
                 "was deleted outside Gantry, and Volcano would make it again",
                 options_.namespace_, job);
    delete_volcano_job(dispatch, job);
    volcano_runs_.erase(dispatch);
  }
}

// The agent has recorded these runs' ends (their exits went out with the
// last collect_exits); all but the newest keep_ended lose their objects.
void KubernetesExecutor::delete_ended_runs() {
  std::vector<RunObjects> expired;
  {
    std::lock_guard lock(mutex_);
    while (ended_runs_.size() > options_.keep_ended) {
      const DispatchId dispatch = ended_runs_.front();
      const auto found = runs_.find(dispatch);
      plugin_mounts_.erase(dispatch);
      gang_names_.erase(dispatch);
      volcano_runs_.erase(dispatch);
      std::erase_if(volcano_ranks_, [&](const auto& entry) { return entry.first.dispatch == dispatch; });
      ended_runs_.pop_front();
      if (found == runs_.end()) continue;
      expired.push_back(std::move(found->second));
      runs_.erase(found);
    }
  }
  for (const RunObjects& run : expired) {
    if (!run.volcano_job.empty()) {
      delete_object(volcano_jobs_path() + "/" + run.volcano_job);  // its pods go with it
    } else {
      for (const std::string& pod : run.pods) delete_object(pods_path() + "/" + pod);
    }
    const std::string objects = "/api/v1/namespaces/" + options_.namespace_;
    if (!run.config_map.empty()) delete_object(objects + "/configmaps/" + run.config_map);
    if (!run.secret.empty()) delete_object(objects + "/secrets/" + run.secret);
    if (!run.service.empty()) {
      const auto current = services_.find(run.service);
      // Only while no later run of the job took the Service over.
      if (current != services_.end() && std::none_of(runs_.begin(), runs_.end(), [&](const auto& r) {
            return r.second.service == run.service;
          })) {
        services_.erase(current);
        delete_object("/api/v1/namespaces/" + options_.namespace_ + "/services/" + run.service);
      }
    }
  }
}

void KubernetesExecutor::delete_object(const std::string& path) {
  try {
    const kube::Response response = client_.remove(path);
    if (!response.ok() && response.status != 404)
      spdlog::warn("kubernetes executor: delete {}: {}", path, status_message(response));
  } catch (const std::exception& error) {
    spdlog::warn("kubernetes executor: delete {}: {}", path, error.what());
  }
}

void KubernetesExecutor::shutdown() {
  if (reflector_) reflector_->stop();
}

std::vector<KubernetesExecutor::Adopted> KubernetesExecutor::adopt() {
  std::unique_lock lock(mutex_);
  if (!listed_.wait_for(lock, kFirstListGuard, [this] { return synced_; })) {
    throw std::runtime_error("kubernetes executor: adopt: no list of pods from " +
                             client_.server() + " within 30 s (see the log)");
  }
  resolve_adopted_volcano_pods();
  std::vector<Adopted> adopted;
  for (const auto& [name, view] : pods_) {
    if (!view.resolved) continue;
    adopted.push_back(view.replica);
    RunObjects& run = runs_[view.replica.key.dispatch];
    run.pods.push_back(name);
    if (!view.volcano_job.empty()) run.volcano_job = view.volcano_job;
    if (!view.replica.ended) {
      ++run.live;
      replicas_.try_emplace(view.replica.key, Replica{.pod = name,
                                                      .volcano_job = view.volcano_job,
                                                      .slot = view.slot,
                                                      .created = true,
                                                      .seen = true});
    }
  }
  for (const auto& [dispatch, run] : runs_) {
    if (run.live == 0 && std::find(ended_runs_.begin(), ended_runs_.end(), dispatch) == ended_runs_.end())
      ended_runs_.push_back(dispatch);
  }
  std::sort(adopted.begin(), adopted.end(), [](const Adopted& a, const Adopted& b) {
    return std::pair(a.key.dispatch, a.key.rank) < std::pair(b.key.dispatch, b.key.rank);
  });
  return adopted;
}

// Under mutex_. Volcano pods no replica here knows (an earlier agent made
// them) take the ranks the agent gives a part's replicas: tasks in order,
// each task's by index. Their Jobs are known from then on, at the size found.
void KubernetesExecutor::resolve_adopted_volcano_pods() {
  std::map<DispatchId, std::vector<PodView*>> by_dispatch;
  for (auto& [name, view] : pods_) {
    if (!view.resolved) by_dispatch[view.slot->dispatch].push_back(&view);
  }
  for (auto& [dispatch, views] : by_dispatch) {
    std::sort(views.begin(), views.end(),
              [](const PodView* a, const PodView* b) { return *a->slot < *b->slot; });
    VolcanoRun& run = volcano_runs_[dispatch];
    run.name = views.front()->volcano_job;
    run.created = true;
    for (std::uint32_t rank = 0; rank < views.size(); ++rank) {
      PodView& view = *views[rank];
      volcano_ranks_[*view.slot] = rank;
      view.replica.key.rank = rank;
      view.resolved = true;
      if (run.replicas.size() <= view.slot->task) run.replicas.resize(view.slot->task + 1, 0);
      run.replicas[view.slot->task] = std::max(run.replicas[view.slot->task], view.slot->index + 1);
    }
    run.applied = run.replicas;
  }
}

bool KubernetesExecutor::started_here(const json& pod) const {
  const json labels = pod.value("metadata", json::object()).value("labels", json::object());
  if (labels.value(kAgentLabel, "") != options_.agent_identity) return false;
  const std::string dispatch = labels.value(kDispatchLabel, "");
  DispatchId id = 0;
  const auto [end, error] = std::from_chars(dispatch.data(), dispatch.data() + dispatch.size(), id);
  if (error != std::errc() || end != dispatch.data() + dispatch.size()) return false;
  std::lock_guard lock(mutex_);
  return started_here_.contains(id);
}

// ---------------------------------------------------------------- the pod watch

void KubernetesExecutor::on_list(const std::vector<json>& pods) {
  std::map<std::string, PodView> listed;
  for (const json& pod : pods) {
    if (auto read = read_pod(pod)) listed.insert(std::move(*read));
  }
  std::vector<std::pair<ReplicaKey, std::string>> unseen;
  {
    std::lock_guard lock(mutex_);
    std::unordered_set<ReplicaKey, ReplicaKeyHash> present;
    for (auto& [name, view] : listed) {
      if (resolve(view)) present.insert(view.replica.key);
    }
    pods_ = std::move(listed);
    for (const auto& [name, view] : pods_) {
      if (view.resolved) apply(view);
    }
    std::vector<std::pair<ReplicaKey, std::string>> vanished;
    for (const auto& [key, replica] : replicas_) {
      if (present.contains(key)) continue;
      // A pod the watch had shown was deleted while the watch was down (a
      // re-list after compaction).
      if (replica.seen) vanished.emplace_back(key, replica.pod);
      // A Volcano pod stopped before any watch showed it: its Job was
      // deleted or scaled below it, so Volcano will not make it again.
      else if (replica.kill_requested && !replica.volcano_job.empty())
        vanished.emplace_back(key, replica.pod);
      // A pod created before this list but missing from it was deleted before
      // any watch showed it, or was created after the list's snapshot: asked below.
      if (!replica.seen && replica.created && replica.volcano_job.empty())
        unseen.emplace_back(key, replica.pod);
    }
    for (const auto& [key, pod] : vanished) pod_gone(key, pod);
    synced_ = true;
  }
  listed_.notify_all();
  for (const auto& [key, pod] : unseen) report_if_missing(key, pod);
}

// A pod still there shows up on the watch, which resumes from the list; one
// that is not never will. (Volcano's pods are not asked about: Volcano may
// not have made them yet.)
void KubernetesExecutor::report_if_missing(const ReplicaKey& key, const std::string& pod) {
  int status = 0;
  try {
    status = client_.get(pods_path() + "/" + pod).status;
  } catch (const std::exception& error) {
    spdlog::warn("kubernetes executor: get pod {}/{}: {}", options_.namespace_, pod, error.what());
  }
  if (status != 404) return;
  std::lock_guard lock(mutex_);
  const auto found = replicas_.find(key);
  if (found != replicas_.end() && !found->second.seen) pod_gone(key, pod);
}

void KubernetesExecutor::on_event(const std::string& type, const json& pod) {
  auto read = read_pod(pod);
  if (!read) return;
  auto& [name, view] = *read;
  std::lock_guard lock(mutex_);
  if (!resolve(view)) {  // a Volcano pod of no replica known here (yet: adopt() may take it)
    if (type == "DELETED") {
      pods_.erase(name);
    } else {
      pods_[name] = view;
    }
    return;
  }
  if (type == "DELETED") {
    pods_.erase(name);
    if (view.replica.ended) {
      apply(view);  // it ended by itself before it was deleted
    } else {
      pod_gone(view.replica.key, name);
    }
    return;
  }
  pods_[name] = view;
  apply(view);
}

std::unique_ptr<LogSource> KubernetesExecutor::open_log(const protocol::LogsRequest& request,
                                                        std::string& why) {
  std::string pod;
  std::string container;
  {
    std::lock_guard lock(mutex_);
    DispatchId newest = 0;  // the replica's latest run here, when the job ran here more than once
    for (const auto& [name, view] : pods_) {
      const Adopted& replica = view.replica;
      if (replica.job != request.job || replica.task != request.task ||
          replica.task_index != request.replica || (!pod.empty() && replica.key.dispatch < newest))
        continue;
      newest = replica.key.dispatch;
      pod = name;
      container = view.log_container;
    }
  }
  if (pod.empty()) {
    why = "replica " + request.task + "-" + std::to_string(request.replica) + " of job " +
          request.job + " has no pod in namespace " + options_.namespace_ +
          " (not created yet, or already deleted)";
    return nullptr;
  }
  return std::make_unique<PodLogSource>(client_, pod_log_path(options_.namespace_, pod, container,
                                                              request.tail_lines, request.follow));
}

void KubernetesExecutor::apply(const PodView& view) {
  const auto found = replicas_.find(view.replica.key);
  if (found == replicas_.end()) return;
  Replica& replica = found->second;
  replica.seen = true;
  if (view.replica.ended) {
    queue_exit(view.replica.key, view.replica.exit_code, view.signal);
    return;
  }
  if (view.running && !replica.running_reported) {
    replica.running_reported = true;
    progress_.push_back(ReplicaProgress{view.replica.key, true});
  } else if (!view.running && !replica.running_reported && view.waiting != replica.waiting_reported) {
    replica.waiting_reported = view.waiting;
    progress_.push_back(ReplicaProgress{view.replica.key, false, view.waiting});
  } else {
    return;
  }
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t ignored = ::write(wake_fd_, &one, sizeof one);
}

void KubernetesExecutor::pod_gone(const ReplicaKey& key, const std::string& pod) {
  const auto found = replicas_.find(key);
  if (found == replicas_.end()) return;
  if (!found->second.kill_requested) {
    spdlog::warn("kubernetes executor: pod {}/{} (dispatch {} rank {}) was deleted outside Gantry",
                 options_.namespace_, pod, key.dispatch, key.rank);
    if (!found->second.volcano_job.empty()) runs_[key.dispatch].volcano_recreates = true;
  }
  queue_exit(key, kKilledExitCode, SIGKILL);
}

void KubernetesExecutor::queue_exit(const ReplicaKey& key, int exit_code, int signal) {
  exits_.push_back(ReplicaExit{key, exit_code, signal});
  if (replicas_.erase(key) != 0) {
    const auto run = runs_.find(key.dispatch);
    if (run != runs_.end() && run->second.live > 0 && --run->second.live == 0)
      ended_runs_.push_back(key.dispatch);
  }
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t ignored = ::write(wake_fd_, &one, sizeof one);
}

}  // namespace gantry::agents
