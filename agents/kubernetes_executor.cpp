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
std::vector<std::pair<std::string, std::string>> identity_environment(const ReplicaLaunch& launch) {
  protocol::JobSpec names;
  names.name = launch.job->name;
  names.tasks.resize(launch.task + 1);
  names.tasks[launch.task].name = task_of(launch).name;
  ReplicaLaunch bare = launch;
  bare.job = &names;
  std::vector<std::pair<std::string, std::string>> env;
  for (const std::string& entry : replica_environment(bare, nullptr)) {
    const std::size_t equals = entry.find('=');
    env.emplace_back(entry.substr(0, equals), entry.substr(equals + 1));
  }
  return env;
}

json resource_list(const protocol::ResourceList& resources) {
  json out = json::object();
  for (const auto& [name, milli] : resources) out[name] = hub::format_quantity(name, milli);
  return out;
}

json container_json(const protocol::ContainerSpec& container, std::size_t index,
                    const std::vector<std::pair<std::string, std::string>>& identity) {
  json out = {{"name", container.name.empty()
                           ? (index == 0 ? std::string("main") : "main-" + std::to_string(index))
                           : container.name},
              {"image", container.image}};
  if (!container.command.empty()) out["command"] = container.command;
  if (!container.args.empty()) out["args"] = container.args;
  json env = json::array();
  auto overridden = [&](const std::string& name) {
    return std::any_of(identity.begin(), identity.end(),
                       [&](const auto& entry) { return entry.first == name; });
  };
  for (const protocol::EnvVar& var : container.env) {
    if (!overridden(var.name)) env.push_back({{"name", var.name}, {"value", var.value}});
  }
  for (const auto& [name, value] : identity) env.push_back({{"name", name}, {"value", value}});
  out["env"] = std::move(env);
  json resources = json::object();
  if (!container.requests.empty()) resources["requests"] = resource_list(container.requests);
  if (!container.limits.empty()) resources["limits"] = resource_list(container.limits);
  if (!resources.empty()) out["resources"] = std::move(resources);
  return out;
}

// Where the pod runs: the node the agent admitted it on. Bound directly
// (nodeName skips the scheduler) unless a scheduler is named; Volcano's
// scheduler must see the pods to gang them, so it gets a node selector.
void place(json& spec, const KubernetesExecutorOptions& options, const ReplicaLaunch& launch,
           bool volcano) {
  json selector = json::object();
  for (const auto& [key, value] : task_of(launch).node_selector) selector[key] = value;
  if (!volcano && !options.scheduler_name.empty()) spec["schedulerName"] = options.scheduler_name;
  if (!launch.node.empty()) {
    if (!volcano && options.scheduler_name.empty()) {
      spec["nodeName"] = launch.node;
    } else {
      selector[kHostnameLabel] = launch.node;
    }
  }
  if (!selector.empty()) spec["nodeSelector"] = std::move(selector);
}

// A bare Pod gets the env Volcano's plugins would give it (Volcano's host
// names, the plugins' --port); nothing mounts their files. A Volcano Job
// runs the plugins itself.
void add_plugin_env(const ReplicaLaunch& launch,
                    std::vector<std::pair<std::string, std::string>>& identity) {
  if (launch.job->plugins.empty()) return;
  PluginReplica replica;
  replica.job = launch.job;
  replica.task = launch.task;
  replica.index = launch.index;
  for (protocol::EnvVar& var : plugin_output(replica, nullptr).env) {
    std::erase_if(identity, [&](const auto& entry) { return entry.first == var.name; });
    identity.emplace_back(std::move(var.name), std::move(var.value));
  }
}

json pod_spec(const KubernetesExecutorOptions& options, const ReplicaLaunch& launch, bool volcano) {
  auto identity = identity_environment(launch);
  if (!volcano) add_plugin_env(launch, identity);
  json containers = json::array();
  const auto& specs = task_of(launch).containers;
  for (std::size_t i = 0; i < specs.size(); ++i)
    containers.push_back(container_json(specs[i], i, identity));
  // Gantry decides about retries (the job's maxRetry), not the kubelet.
  json spec = {{"restartPolicy", "Never"}, {"containers", std::move(containers)}};
  place(spec, options, launch, volcano);
  return spec;
}

std::string pod_name(const ReplicaLaunch& launch) {
  return dns_label(launch.job->name, "-" + std::to_string(launch.key.dispatch) + "-" +
                                         std::to_string(launch.key.rank));
}

json pod_manifest(const KubernetesExecutorOptions& options, const ReplicaLaunch& launch) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", pod_name(launch)},
            {"namespace", options.namespace_},
            {"labels", replica_labels(options, launch)},
            {"annotations", replica_annotations(launch)}}},
          {"spec", pod_spec(options, launch, /*volcano=*/false)}};
}

// One Volcano task per replica (replicas: 1): replicas of a task share its
// template, but each replica needs its own RANK and GANTRY_REPLICA_INDEX and
// its own planned node. minAvailable over the tasks keeps the part a gang.
std::string volcano_task_name(const ReplicaLaunch& launch, const std::string& job_name) {
  const std::size_t room = kMaxLabelLength - job_name.size() - 3;  // "<job>-<task>-0"
  return dns_label(task_of(launch).name, "-" + std::to_string(launch.index), room);
}

json volcano_task(const KubernetesExecutorOptions& options, const ReplicaLaunch& launch,
                  const std::string& task_name) {
  return {{"name", task_name},
          {"replicas", 1},
          {"template",
           {{"metadata",
             {{"labels", replica_labels(options, launch)},
              {"annotations", replica_annotations(launch)}}},
            {"spec", pod_spec(options, launch, /*volcano=*/true)}}}};
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
  // Volcano's controller runs the job's plugins, with the arguments as given.
  if (!launch.job->plugins.empty()) manifest["spec"]["plugins"] = launch.job->plugins;
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
  const json manifest = pod_manifest(options_, launch);
  const std::string name = manifest["metadata"]["name"];
  {
    std::lock_guard lock(mutex_);
    replicas_[launch.key] = Replica{.pod = name};
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

void KubernetesExecutor::record_volcano_task(const ReplicaLaunch& launch) {
  PendingJob& job = pending_jobs_[launch.key.dispatch];
  if (job.manifest.is_null()) job.manifest = volcano_job_manifest(options_, launch);
  const std::string job_name = job.manifest["metadata"]["name"];
  const std::string task_name = volcano_task_name(launch, job_name);
  job.manifest["spec"]["tasks"].push_back(volcano_task(options_, launch, task_name));
  job.keys.push_back(launch.key);
  std::lock_guard lock(mutex_);
  replicas_[launch.key] =
      Replica{.pod = job_name + "-" + task_name + "-0", .volcano_job = job_name};
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
  std::lock_guard lock(mutex_);
  out.insert(out.end(), exits_.begin(), exits_.end());
  exits_.clear();
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
    if (!view.replica.ended) {
      replicas_.try_emplace(
          view.replica.key,
          Replica{.pod = name, .volcano_job = view.volcano_job, .created = true, .seen = true});
    }
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
  found->second.seen = true;
  if (view.replica.ended) queue_exit(view.replica.key, view.replica.exit_code, view.signal);
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
  replicas_.erase(key);
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t ignored = ::write(wake_fd_, &one, sizeof one);
}

}  // namespace gantry::agents
