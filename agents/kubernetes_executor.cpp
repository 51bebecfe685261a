#include "agents/kubernetes_executor.hpp"

#include <openssl/evp.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <system_error>
#include <unordered_set>

#include "agents/job_plugins.hpp"
#include "agents/replica_env.hpp"
#include "hub/field_error.hpp"
#include "hub/quantity.hpp"
#include "kube/query.hpp"

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

// A Secret's data values (OpenSSL's encoder, no line breaks).
std::string base64(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                      reinterpret_cast<const unsigned char*>(bytes.data()),
                                      static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(written));
  return out;
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
  const json status = json::parse(response.body, nullptr, false);
  std::string message = text(status, "message");
  if (message.empty()) message = response.body.substr(0, 200);
  return "HTTP " + std::to_string(response.status) + ": " + message;
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
// which each container brings from its own spec instead.
// Volcano mode: every replica is a one-replica task "<task>-<index>" of the
// part's Volcano Job, whose svc plugin (always on) names its pod
// "<vjob>-<task>-<index>-0.<vjob>".
std::string volcano_task_name(const std::string& task, std::int32_t index,
                              const std::string& job_name) {
  const std::size_t room = kMaxLabelLength - job_name.size() - 3;  // "<job>-<task>-0"
  return dns_label(task, "-" + std::to_string(index), room);
}

std::string volcano_host_name(const protocol::JobSpec& job, DispatchId dispatch, std::size_t task,
                              std::int32_t index) {
  const std::string job_name = group_name(job.name, dispatch);
  return job_name + "-" + volcano_task_name(job.tasks[task].name, index, job_name) + "-0." +
         job_name;
}

std::vector<std::pair<std::string, std::string>> identity_environment(const ReplicaLaunch& launch,
                                                                      bool volcano) {
  protocol::JobSpec names;
  names.name = launch.job->name;
  names.tasks.resize(launch.task + 1);
  names.tasks[launch.task].name = task_of(launch).name;
  ReplicaLaunch bare = launch;
  bare.job = &names;
  // One cluster: the gang meets at rank 0's pod, by the name its Service gives it.
  if (launch.parts <= 1) {
    bare.master_addr = volcano ? volcano_host_name(*launch.job, launch.key.dispatch, 0, 0)
                               : host_name(*launch.job, 0, 0);
  }
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
// (nodeName skips the scheduler) unless a scheduler is named; Volcano's
// scheduler must see the pods to gang them, so it gets a node selector on
// the node's kubernetes.io/hostname label (which need not be its name).
void place(json& spec, const KubernetesExecutorOptions& options, const ReplicaLaunch& launch,
           bool volcano) {
  json selector = spec.contains("nodeSelector") && spec["nodeSelector"].is_object()
                      ? spec["nodeSelector"]
                      : json::object();
  if (!volcano && !options.scheduler_name.empty()) spec["schedulerName"] = options.scheduler_name;
  if (!launch.node.empty()) {
    if (!volcano && options.scheduler_name.empty()) {
      spec["nodeName"] = launch.node;
    } else {
      selector[kHostnameLabel] = launch.node_hostname.empty() ? launch.node : launch.node_hostname;
    }
  }
  if (!selector.empty()) spec["nodeSelector"] = std::move(selector);
}

// A bare Pod gets the env Volcano's plugins would give it, always with the
// svc plugin's VC_<TASK>_HOSTS / VC_<TASK>_NUM (the pods' names resolve
// through the job's headless Service); nothing mounts the plugins' files.
// A Volcano Job runs the plugins itself.
void add_plugin_env(const ReplicaLaunch& launch, Identity& identity) {
  protocol::JobSpec with_svc = *launch.job;
  with_svc.plugins.try_emplace("svc");
  const ReplicaHosts hosts = gang_hosts(with_svc);
  PluginReplica replica;
  replica.job = &with_svc;
  replica.task = launch.task;
  replica.index = launch.index;
  replica.hosts = &hosts;
  replica.master_port = launch.master_port;
  for (protocol::EnvVar& var : plugin_output(replica, nullptr).env) {
    std::erase_if(identity, [&](const auto& entry) { return entry.first == var.name; });
    identity.emplace_back(std::move(var.name), std::move(var.value));
  }
}

// The template's spec with what Gantry sets: identity env in every
// container, restartPolicy Never (Gantry decides retries from the job's
// maxRetry, not the kubelet), the node, and in pods mode the host name and
// subdomain that make the rendezvous names resolve.
json pod_spec(const KubernetesExecutorOptions& options, const ReplicaLaunch& launch, json spec,
              bool volcano) {
  Identity identity = identity_environment(launch, volcano);
  if (!volcano) add_plugin_env(launch, identity);
  if (json& containers = spec["containers"]; containers.is_array()) {
    for (json& container : containers) add_identity(container, identity);
  }
  spec["restartPolicy"] = "Never";
  place(spec, options, launch, volcano);
  if (!volcano) {
    spec["hostname"] = pod_hostname(*launch.job, launch.task, launch.index);
    spec["subdomain"] = service_name(*launch.job);
  }
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
                  const PluginMounts& mounts) {
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
             json spec = pod_spec(options, launch, std::move(object["spec"]), /*volcano=*/false);
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

// One Volcano task per replica (replicas: 1): replicas of a task share its
// template, but each replica needs its own RANK and GANTRY_REPLICA_INDEX and
// its own planned node. minAvailable over the tasks keeps the part a gang.
std::string volcano_task_name(const ReplicaLaunch& launch, const std::string& job_name) {
  return volcano_task_name(task_of(launch).name, launch.index, job_name);
}

json volcano_task(const KubernetesExecutorOptions& options, const ReplicaLaunch& launch,
                  const std::string& task_name) {
  json object = template_of(task_of(launch));
  json metadata = merged_metadata(object["metadata"], replica_labels(options, launch),
                                  replica_annotations(launch));
  return {{"name", task_name},
          {"replicas", 1},
          {"template",
           {{"metadata", std::move(metadata)},
            {"spec", pod_spec(options, launch, std::move(object["spec"]), /*volcano=*/true)}}}};
}

json volcano_job_manifest(const KubernetesExecutorOptions& options, const ReplicaLaunch& launch) {
  json manifest = {{"apiVersion", kVolcanoGroupVersion},
                   {"kind", "Job"},
                   {"metadata",
                    {{"name", group_name(launch.job->name, launch.key.dispatch)},
                     {"namespace", options.namespace_},
                     {"labels", part_labels(options, launch)},
                     {"annotations",
                      {{kPartsAnnotation, std::to_string(part_of(launch).second)},
                       {kJobAnnotation, launch.job->name}}}}},
                   {"spec",
                    {{"schedulerName", kVolcanoScheduler},
                     {"minAvailable", 0},  // set by started_all(), once every replica is in
                     {"tasks", json::array()}}}};
  // Volcano's controller runs the job's plugins, with the arguments as given;
  // its svc plugin always, so that the pods' names resolve (MASTER_ADDR).
  std::map<std::string, std::vector<std::string>> plugins = launch.job->plugins;
  plugins.try_emplace("svc");
  manifest["spec"]["plugins"] = plugins;
  if (const std::string queue = member_queue(options, launch); !queue.empty())
    manifest["spec"]["queue"] = queue;
  return manifest;
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
  if (!dispatch || !rank || name.empty()) return std::nullopt;
  PodView view;
  Adopted& replica = view.replica;
  replica.key = ReplicaKey{*dispatch, *rank};
  replica.job = text(annotations, kJobAnnotation);
  if (replica.job.empty()) replica.job = text(labels, kJobLabel);
  replica.task = text(annotations, kTaskAnnotation);
  if (replica.task.empty()) replica.task = text(labels, kTaskLabel);
  replica.node = node_of(member(pod, "spec"));
  replica.part = int_or(text(labels, kPartLabel), 0);
  replica.parts = int_or(text(annotations, kPartsAnnotation), 1);
  replica.task_index = int_or(text(annotations, kTaskIndexAnnotation), 0);
  const std::string phase = text(member(pod, "status"), "phase");
  if (phase == "Succeeded") {
    replica.ended = true;
  } else if (phase == "Failed") {
    replica.ended = true;
    std::tie(replica.exit_code, view.signal) = failed_exit(member(pod, "status"));
  }
  view.volcano_job = text(labels, kVolcanoJobNameLabel);
  view.running = phase == "Running";
  if (!replica.ended && !view.running) view.waiting = waiting_reason(pod);
  return std::pair{name, std::move(view)};
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

std::string KubernetesExecutor::check_split(const protocol::JobSpec&, std::int32_t parts) const {
  if (parts <= 1 || options_.cross_cluster_rendezvous) return "";
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
    record_volcano_task(launch);
  } else {
    start_pod(launch);
  }
}

// Creates the pod. The replica is known before the POST, as its first watch
// event may come before the answer.
void KubernetesExecutor::start_pod(const ReplicaLaunch& launch) {
  ensure_service(launch);
  const json manifest = pod_manifest(options_, launch, plugin_mounts(launch));
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
PluginMounts KubernetesExecutor::plugin_mounts(const ReplicaLaunch& launch) {
  const DispatchId dispatch = launch.key.dispatch;
  if (const auto made = plugin_mounts_.find(dispatch); made != plugin_mounts_.end())
    return made->second;
  protocol::JobSpec with_svc = *launch.job;
  with_svc.plugins.try_emplace("svc");
  const ReplicaHosts hosts = gang_hosts(with_svc);
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
      secret[file.name] = base64(file.content);
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

void KubernetesExecutor::record_volcano_task(const ReplicaLaunch& launch) {
  PendingJob& job = pending_jobs_[launch.key.dispatch];
  if (job.manifest.is_null()) job.manifest = volcano_job_manifest(options_, launch);
  const std::string job_name = job.manifest["metadata"]["name"];
  const std::string task_name = volcano_task_name(launch, job_name);
  job.manifest["spec"]["tasks"].push_back(volcano_task(options_, launch, task_name));
  job.keys.push_back(launch.key);
  std::lock_guard lock(mutex_);
  const std::string pod = job_name + "-" + task_name + "-0";
  replicas_[launch.key] = Replica{.pod = pod, .volcano_job = job_name};
  note_object(launch.key.dispatch, pod, job_name);
}

void KubernetesExecutor::started_all(DispatchId dispatch, TimeMs) {
  auto pending = pending_jobs_.extract(dispatch);
  if (pending.empty()) return;
  PendingJob& job = pending.mapped();
  job.manifest["spec"]["minAvailable"] = job.keys.size();
  const std::string name = job.manifest["metadata"]["name"];
  const std::string failure = create(volcano_jobs_path(), name, job.manifest);
  std::lock_guard lock(mutex_);
  for (const ReplicaKey& key : job.keys) {
    const auto found = replicas_.find(key);
    if (found == replicas_.end()) continue;
    // Every replica already counts as started: each gets its exit, and the
    // part fails through them (started_all does not throw).
    if (failure.empty()) {
      found->second.created = true;
    } else {
      queue_exit(key, kCouldNotStartExitCode, 0);
    }
  }
  if (!failure.empty()) {
    spdlog::error("create Volcano Job {}/{}: {}: its replicas end with exit {}",
                  options_.namespace_, name, failure, kCouldNotStartExitCode);
  }
}

void KubernetesExecutor::kill(const ReplicaKey& key) {
  Replica replica;
  {
    std::lock_guard lock(mutex_);
    const auto found = replicas_.find(key);
    if (found == replicas_.end() || !found->second.created) {
      // Never created (or already ended: the agent ignores a second report).
      // A part stopped before started_all() is never created.
      if (found != replicas_.end()) pending_jobs_.erase(key.dispatch);
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
    // Gone before the watch saw it (or Volcano has not made it yet): nothing
    // will report it, and the Job's deletion takes a pod that comes late.
    std::lock_guard lock(mutex_);
    const auto found = replicas_.find(key);
    if (found != replicas_.end() && !found->second.seen) queue_exit(key, kKilledExitCode, SIGKILL);
  } else if (response.status != 0 && !response.ok()) {
    spdlog::error("kubernetes executor: kill: delete pod {}/{}: {}", options_.namespace_,
                  replica.pod, status_message(response));
  }
  if (!replica.volcano_job.empty())
    delete_volcano_job_when_all_killed(key.dispatch, replica.volcano_job);
}

void KubernetesExecutor::delete_volcano_job_when_all_killed(DispatchId dispatch,
                                                            const std::string& job) {
  {
    std::lock_guard lock(mutex_);
    for (const auto& [key, replica] : replicas_) {
      if (key.dispatch == dispatch && !replica.kill_requested) return;
    }
  }
  try {
    const kube::Response response = client_.remove(volcano_jobs_path() + "/" + job);
    if (!response.ok() && response.status != 404) {
      spdlog::error("kubernetes executor: delete Volcano Job {}/{}: {}", options_.namespace_, job,
                    status_message(response));
    }
  } catch (const std::exception& error) {
    spdlog::error("kubernetes executor: delete Volcano Job {}/{}: {}", options_.namespace_, job,
                  error.what());
  }
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
  delete_ended_runs();
}

// Called before collect_exits() on the same wake-up (which resets the eventfd).
void KubernetesExecutor::collect_progress(std::vector<ReplicaProgress>& out) {
  std::lock_guard lock(mutex_);
  out.insert(out.end(), progress_.begin(), progress_.end());
  progress_.clear();
}

// The agent has recorded these runs' ends (their exits went out with the
// last collect_exits); all but the newest keep_ended lose their objects.
void KubernetesExecutor::delete_ended_runs() {
  std::vector<RunObjects> expired;
  {
    std::lock_guard lock(mutex_);
    while (ended_runs_.size() > options_.keep_ended) {
      const auto found = runs_.find(ended_runs_.front());
      plugin_mounts_.erase(ended_runs_.front());
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
  std::vector<Adopted> adopted;
  for (const auto& [name, view] : pods_) {
    adopted.push_back(view.replica);
    RunObjects& run = runs_[view.replica.key.dispatch];
    run.pods.push_back(name);
    if (!view.volcano_job.empty()) run.volcano_job = view.volcano_job;
    if (!view.replica.ended) {
      ++run.live;
      replicas_.try_emplace(
          view.replica.key,
          Replica{.pod = name, .volcano_job = view.volcano_job, .created = true, .seen = true});
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
  std::unordered_set<ReplicaKey, ReplicaKeyHash> present;
  for (const auto& [name, view] : listed) present.insert(view.replica.key);
  std::vector<std::pair<ReplicaKey, std::string>> unseen;
  {
    std::lock_guard lock(mutex_);
    pods_ = std::move(listed);
    for (const auto& [name, view] : pods_) apply(view);
    std::vector<std::pair<ReplicaKey, std::string>> vanished;
    for (const auto& [key, replica] : replicas_) {
      if (present.contains(key)) continue;
      // A pod the watch had shown was deleted while the watch was down (a
      // re-list after compaction).
      if (replica.seen) vanished.emplace_back(key, replica.pod);
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
  const auto& [name, view] = *read;
  std::lock_guard lock(mutex_);
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
