// Every message that crosses a process boundary in Gantry: hub <-> agent and
// hub <-> gantryctl. One place, so that a reader sees the whole wire contract.
//
// Conventions:
// - Resource quantities are int64 *milli-units* keyed by resource name
//   ("cpu": 1500 is 1.5 cores, "memory": 1024000 is 1 KiB, "nvidia.com/gpu":
//   8000 is 8 GPUs), as Kubernetes' MilliValue. Converting to display units is
//   the console's job.
// - Timestamps are int64 milliseconds since the Unix epoch, set by the process
//   that owns the clock (never by the pure core).
// - Structs are msgpack maps (GANTRY_WIRE_FIELDS, protocol/wire_fields.hpp) so a
//   newer peer may add fields: an older peer ignores keys it does not know, and
//   missing keys keep their defaults. A field's name is its key: renaming one
//   breaks older peers (tests/protocol/wire_keys_test.cpp says so).
// - Which of these structs are messages, with their numeric type and direction:
//   protocol/message_table.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "protocol/wire_fields.hpp"

namespace gantry::protocol {

// 2: two-phase dispatch (Prepare / Admit / Commit / Abort) replaced the
// one-shot Dispatch; a version-1 agent would start replicas on a Dispatch the
// hub no longer sends, so the versions refuse each other.
// 3: Prepare carries the gang as the hub resolved it (Prepare::gang); a
// version-2 agent would admit its own reading of the spec instead.
constexpr std::uint16_t kProtocolVersion = 3;

using ResourceList = std::map<std::string, std::int64_t>;  // name -> milli-units
using Labels = std::map<std::string, std::string>;

// ---------------------------------------------------------------- job spec
struct EnvVar {
  std::string name;
  std::string value;
  GANTRY_WIRE_FIELDS(EnvVar, name, value);
};

struct ContainerSpec {
  std::string name;
  std::string image;
  std::vector<std::string> command;
  std::vector<std::string> args;
  std::vector<EnvVar> env;
  ResourceList requests;
  ResourceList limits;
  GANTRY_WIRE_FIELDS(ContainerSpec, name, image, command, args, env, requests, limits);
};

// A Volcano LifecyclePolicy (spec.policies[] and spec.tasks[].policies[]):
// when one of `events` happens (or a replica exits with `exit_code`), take
// `action`, after `timeout_ms`. What each event and action does:
// docs/volcano-compat.md.
struct LifecyclePolicy {
  std::vector<std::string> events;  // "PodFailed", "PodEvicted", ..., "*"; empty with an exit code
  std::string action;               // "RestartJob", "AbortJob", "CompleteJob", ...
  std::int32_t exit_code = 0;       // 0: not given (Volcano refuses exitCode 0)
  std::int64_t timeout_ms = 0;      // 0: act at once
  GANTRY_WIRE_FIELDS(LifecyclePolicy, events, action, exit_code, timeout_ms);
};

// Volcano's spec.networkTopology (and partitionPolicy.networkTopology):
// `hard` keeps the gang within one topology domain of at most tier
// `highest_tier_allowed`; `soft` prefers it. Empty mode: not given.
struct NetworkTopology {
  std::string mode;                       // "" | "hard" | "soft"
  std::int32_t highest_tier_allowed = 0;  // 0: not given
  GANTRY_WIRE_FIELDS(NetworkTopology, mode, highest_tier_allowed);
};

// spec.tasks[].partitionPolicy (Volcano 1.12+): the task's replicas in
// partitions of partition_size, each on one topology domain.
struct PartitionPolicy {
  std::int32_t total_partitions = 0;  // 0: not given
  std::int32_t partition_size = 0;
  std::int32_t min_partitions = 0;
  NetworkTopology network_topology;
  GANTRY_WIRE_FIELDS(PartitionPolicy, total_partitions, partition_size, min_partitions,
                     network_topology);
};

// spec.tasks[].dependsOn: the task starts once the tasks it names run
// (iteration "any": one of them; "all", the default: every one).
struct TaskDependency {
  std::vector<std::string> names;
  std::string iteration;  // "" (= "all") | "any" | "all"
  GANTRY_WIRE_FIELDS(TaskDependency, names, iteration);
};

// A pod's toleration (core/v1 Toleration): which node taints it accepts.
// `op` is "Equal" (the default) or "Exists"; an empty effect matches every
// effect, an empty key with Exists every taint.
struct Toleration {
  std::string key;
  std::string op;  // operator
  std::string value;
  std::string effect;  // "" | NoSchedule | PreferNoSchedule | NoExecute
  GANTRY_WIRE_FIELDS(Toleration, key, op, value, effect);
};

// A node's taint (core/v1 Taint): pods that do not tolerate it are not
// scheduled there (NoSchedule, NoExecute).
struct Taint {
  std::string key;
  std::string value;
  std::string effect;
  GANTRY_WIRE_FIELDS(Taint, key, value, effect);
};

struct TaskSpec {
  std::string name;
  std::int32_t replicas = 1;
  Labels node_selector;  // template.spec.nodeSelector, e.g. nvidia.com/gpu.product
  std::vector<ContainerSpec> containers;
  // template.spec.activeDeadlineSeconds (Kubernetes): how long the task's
  // replicas may run; 0 = none. The job's limit: hub::make_job_request.
  std::int64_t active_deadline_seconds = 0;
  std::int32_t min_available = -1;          // spec.tasks[].minAvailable; -1: not given (= replicas)
  std::int32_t max_retry = 0;               // spec.tasks[].maxRetry; 0: the job's
  std::vector<LifecyclePolicy> policies{};  // override the job's for this task's events
  TaskDependency depends_on{};              // no names: starts with the gang
  std::string topology_policy{};            // NUMA policy (accepted; docs/volcano-compat.md)
  PartitionPolicy partition_policy{};
  std::vector<Toleration> tolerations{};  // template.spec.tolerations
  // The task's whole pod template (metadata and spec) as submitted, as JSON
  // text: the kubernetes executor starts every pod from it ("" when the job
  // was not read from a manifest).
  std::string pod_template{};
  GANTRY_WIRE_FIELDS(TaskSpec, name, replicas, node_selector, containers, active_deadline_seconds,
                     min_available, max_retry, policies, depends_on, topology_policy,
                     partition_policy, tolerations, pod_template);
};

// A Volcano Job (batch.volcano.sh/v1alpha1), reduced to what Gantry uses.
struct JobSpec {
  std::string name;
  std::string queue = "default";
  std::string priority_class;      // spec.priorityClassName
  std::int32_t priority = 0;       // resolved priority value
  std::int32_t min_available = 0;  // 0 = all replicas
  std::int32_t max_retry = 3;
  Labels annotations;  // metadata.annotations (gantry.io/sim-duration, ...)
  std::vector<TaskSpec> tasks;
  std::string generate_name{};   // metadata.generateName: the hub makes `name` from it
  Labels labels{};               // metadata.labels
  std::int32_t min_success = 0;  // spec.minSuccess; 0: not given
  // spec.ttlSecondsAfterFinished: a finished job is deleted this long after
  // it ended; -1: kept until deleted.
  std::int64_t ttl_seconds_after_finished = -1;
  std::vector<LifecyclePolicy> policies{};  // spec.policies
  // spec.plugins: plugin name -> its arguments ("pytorch": ["--master=master"]).
  std::map<std::string, std::vector<std::string>> plugins{};
  NetworkTopology network_topology{};
  GANTRY_WIRE_FIELDS(JobSpec, name, queue, priority_class, priority, min_available, max_retry,
                     annotations, tasks, generate_name, labels, min_success,
                     ttl_seconds_after_finished, policies, plugins, network_topology);
};

// ---------------------------------------------------------------- status
// Volcano job phases, as strings on the wire and in gantryctl output.
namespace phase {
inline constexpr const char* kPending = "Pending";
inline constexpr const char* kRunning = "Running";
inline constexpr const char* kRestarting = "Restarting";
inline constexpr const char* kCompleted = "Completed";
inline constexpr const char* kFailed = "Failed";
inline constexpr const char* kAborted = "Aborted";
inline constexpr const char* kCompleting = "Completing";
inline constexpr const char* kAborting = "Aborting";
inline constexpr const char* kTerminating = "Terminating";
inline constexpr const char* kTerminated = "Terminated";
}  // namespace phase

// Volcano's LifecyclePolicy events and actions, as users write them.
namespace policy_event {
inline constexpr const char* kPodFailed = "PodFailed";
inline constexpr const char* kPodEvicted = "PodEvicted";
inline constexpr const char* kPodPending = "PodPending";
inline constexpr const char* kTaskCompleted = "TaskCompleted";
inline constexpr const char* kTaskFailed = "TaskFailed";
inline constexpr const char* kJobUnknown = "JobUnknown";
inline constexpr const char* kAny = "*";
}  // namespace policy_event
namespace policy_action {
inline constexpr const char* kRestartJob = "RestartJob";
inline constexpr const char* kRestartTask = "RestartTask";
inline constexpr const char* kRestartPod = "RestartPod";
inline constexpr const char* kAbortJob = "AbortJob";
inline constexpr const char* kCompleteJob = "CompleteJob";
inline constexpr const char* kTerminateJob = "TerminateJob";
}  // namespace policy_action

struct TaskStatus {
  std::string name;
  std::int32_t pending = 0;
  std::int32_t running = 0;
  std::int32_t succeeded = 0;
  std::int32_t failed = 0;
  GANTRY_WIRE_FIELDS(TaskStatus, name, pending, running, succeeded, failed);
};

// ---------------------------------------------------------------- agent <-> hub
// One GPU as NVML reports it: what it is and how much of it is used (an
// allocated GPU may sit idle; operators want to see that).
struct GpuUsage {
  std::int32_t index = 0;
  std::string product;  // nvmlDeviceGetName, e.g. "NVIDIA A100-SXM4-80GB"
  std::int64_t memory_total_bytes = 0;
  std::int64_t memory_used_bytes = 0;
  std::int32_t utilization_percent = 0;  // nvmlDeviceGetUtilizationRates().gpu
  std::int32_t processes = 0;            // compute processes running on it
  GANTRY_WIRE_FIELDS(GpuUsage, index, product, memory_total_bytes, memory_used_bytes,
                     utilization_percent, processes);
};

struct NodeUsage {
  std::string name;
  Labels labels;
  ResourceList allocatable;
  ResourceList allocated;
  std::string gpu_model;        // also present as label nvidia.com/gpu.product
  std::vector<GpuUsage> gpus;   // from the node's NVML, when a node-role agent reports it
  std::vector<Taint> taints{};  // NoSchedule / NoExecute taints (Kubernetes nodes)
  GANTRY_WIRE_FIELDS(NodeUsage, name, labels, allocatable, allocated, gpu_model, gpus, taints);
};

// Open Cluster Management's AddOnPlacementScore scores of a cluster, computed
// by its agent as OCM's resource-usage-collect addon does (hub/ocm_score.hpp):
// each -100..100; node scope = the node with the most free, cluster scope =
// the sum. valid_until_ms: when they go stale (0 = not computed).
struct PlacementScores {
  std::int32_t cpu_node_available = -100;
  std::int32_t cpu_cluster_available = -100;
  std::int32_t mem_node_available = -100;
  std::int32_t mem_cluster_available = -100;
  std::int32_t gpu_node_available = -100;
  std::int32_t gpu_cluster_available = -100;
  std::int64_t valid_until_ms = 0;
  GANTRY_WIRE_FIELDS(PlacementScores, cpu_node_available, cpu_cluster_available, mem_node_available,
                     mem_cluster_available, gpu_node_available, gpu_cluster_available,
                     valid_until_ms);
};

// node-role agent -> its cluster-role agent: what one node has and uses, from
// /proc and NVML. The cluster role joins it with the Kubernetes view.
struct NodeReport {
  std::string cluster;
  std::string node;               // the Kubernetes node name (NODE_NAME), else the host name
  std::int64_t cpu_milli = 0;     // online CPUs x 1000
  std::int64_t memory_bytes = 0;  // MemTotal
  std::int64_t memory_available_bytes = 0;  // MemAvailable
  double load1 = 0.0;                       // /proc/loadavg
  std::vector<GpuUsage> gpus;
  std::string gpu_error;  // why NVML gave no GPUs ("" when it answered)
  GANTRY_WIRE_FIELDS(NodeReport, cluster, node, cpu_milli, memory_bytes, memory_available_bytes,
                     load1, gpus, gpu_error);
};

// agent -> hub: progress of an admitted dispatch.
struct StatusUpdate {
  std::uint64_t dispatch_id = 0;
  std::string job;
  std::string phase;  // protocol::phase
  std::vector<TaskStatus> tasks;
  std::string message;
  // The replica whose end failed the part (policy_event::kPodFailed), so the
  // hub can apply the job's lifecycle policies; empty `event` when none did.
  // kPodEvicted with phase Failed: the agent stopped the part itself, cut off
  // from the hub (self-fencing); the hub requeues the job (an older hub,
  // which ignores the event, fails it).
  // (Initialised, so that brace-initialised updates may leave them out.)
  std::string event{};
  std::string task{};
  std::int32_t replica = -1;  // its index within `task`
  std::int32_t exit_code = 0;
  GANTRY_WIRE_FIELDS(StatusUpdate, dispatch_id, job, phase, tasks, message, event, task, replica,
                     exit_code);
};

// One replica of a part of a dispatch: its task and the node it holds.
struct PlacedReplica {
  std::string task;
  std::string node;
  GANTRY_WIRE_FIELDS(PlacedReplica, task, node);
};

// A network-topology rule as the hub resolved it (hub::TopologyConstraint):
// mode "" (none), "hard" or "soft"; domains of tiers 1 .. highest_tier.
struct TopologyRule {
  std::string mode;
  std::int32_t highest_tier = 1;
  GANTRY_WIRE_FIELDS(TopologyRule, mode, highest_tier);
};

// One task of a resolved gang (hub::TaskShape), every replica of the job.
struct ResolvedTask {
  std::string name;
  std::int32_t replicas = 0;
  ResourceList per_replica;  // what one replica asks for
  Labels node_selector;
  std::vector<Toleration> tolerations;
  std::int32_t partition_size = 0;  // 0: no partitions
  std::int32_t min_partitions = 0;
  TopologyRule partition_topology;
  GANTRY_WIRE_FIELDS(ResolvedTask, name, replicas, per_replica, node_selector, tolerations,
                     partition_size, min_partitions, partition_topology);
};

// The gang as the hub resolved and placed it (hub::GangShape, by
// hub/gang_wire.hpp): an agent admits this, never its own reading of the
// spec, so the two cannot disagree on requests, selectors, tolerations,
// partitions or minAvailable.
struct ResolvedGang {
  std::vector<ResolvedTask> tasks;  // in JobSpec::tasks order
  std::int32_t min_available = 0;
  TopologyRule topology;
  GANTRY_WIRE_FIELDS(ResolvedGang, tasks, min_available, topology);
};

// A part of a dispatch an agent holds, with where its replicas are: enough
// for a restarted hub to take the job back instead of starting it again.
// `committed` is false for a part that is prepared (resources held) but was
// never told to start.
struct RunningDispatch {
  std::uint64_t dispatch_id = 0;
  std::string job;
  std::vector<PlacedReplica> replicas;
  std::int32_t part = 0;
  std::int32_t parts = 1;
  bool committed = true;
  GANTRY_WIRE_FIELDS(RunningDispatch, dispatch_id, job, replicas, part, parts, committed);
};

// A Hello whose labels carry kSourceLabel = kKarmadaSource comes from the
// Karmada gateway (docs/karmada.md), which speaks for a Karmada member cluster
// the way an agent speaks for its own. A cluster's own agent wins: the hub
// refuses the gateway's Hello for a cluster an agent serves
// (ErrorReply{code: "cluster_has_agent"}).
inline constexpr const char* kSourceLabel = "gantry.io/source";
inline constexpr const char* kKarmadaSource = "karmada";

// agent -> hub, first message of a session and after every reconnect.
struct Hello {
  std::string cluster;
  Labels labels;
  std::string agent_version;
  std::vector<RunningDispatch> running;  // what the agent still runs
  // The final status of runs that ended lately (repeated: the hub may have
  // missed it while going away).
  std::vector<StatusUpdate> ended;
  GANTRY_WIRE_FIELDS(Hello, cluster, labels, agent_version, running, ended);
};

// hub -> agent, answer to Hello.
struct Welcome {
  std::uint64_t hub_epoch = 0;  // changes on every hub start
  std::int32_t heartbeat_interval_ms = 1000;
  std::int32_t heartbeat_liveness = 3;  // missed intervals before the peer is dead
  GANTRY_WIRE_FIELDS(Welcome, hub_epoch, heartbeat_interval_ms, heartbeat_liveness);
};

// both directions; the hub echoes each agent heartbeat so agents notice a dead hub.
struct Heartbeat {
  std::string cluster;
  std::uint64_t hub_epoch = 0;
  GANTRY_WIRE_FIELDS(Heartbeat, cluster, hub_epoch);
};

// agent -> hub, on register and whenever allocation changes.
struct UsageReport {
  std::string cluster;
  std::vector<NodeUsage> nodes;
  // Dispatches whose resources are already counted in `allocated`; the hub drops
  // its own reservation for these.
  std::vector<std::uint64_t> accounted_dispatches;
  PlacementScores scores;  // the agent's OCM scores (valid_until_ms 0: none)
  // Why the cluster takes no work yet ("" = it does): "syncing" while a
  // cluster-role agent's Kubernetes view has not listed every Node and Pod.
  std::string not_ready_reason{};
  // How the cluster knows its nodes' fit ("" = per node, as agents and
  // Karmada resource models report it); else why only a summary is known,
  // e.g. "no node models: summary fit" for a Karmada Cluster whose one
  // summary node is an upper bound (a gang may not fit any real node).
  std::string fit_note{};
  GANTRY_WIRE_FIELDS(UsageReport, cluster, nodes, accounted_dispatches, scores, not_ready_reason,
                     fit_note);
};

// Two-phase dispatch (docs/wire-flow.md): the hub sends each part of a
// dispatch a Prepare; every agent answers Admit (the part's resources are
// held, nothing is started) or Reject; only when every part admitted does the
// hub send Commit to each, and the replicas start. Otherwise the admitted
// parts get Abort. A dispatch id names one placement of one job; a cluster
// holds at most one part of it, so (dispatch id, cluster) names a part.

// hub -> agent: hold resources for one part of a dispatch; start nothing.
struct Prepare {
  std::uint64_t dispatch_id = 0;
  std::int32_t part = 0;   // this part's index; part 0 holds rank 0
  std::int32_t parts = 1;  // parts of the dispatch, one per cluster
  // The job's placement epoch: 1 for its first placement, one more each time
  // it is placed again.
  std::uint32_t epoch = 0;
  // The workload itself (pod templates, policies) for the executors; what the
  // agent admits is `gang`.
  JobSpec job;
  ResolvedGang gang;  // the whole job's gang; this part is task_replicas of it
  std::map<std::string, std::int32_t> task_replicas;  // task -> replicas in this part
  // Where the hub would put each replica of this part; the agent re-checks
  // them against its live node state and may choose other nodes.
  std::vector<PlacedReplica> nodes;
  std::int32_t rank_offset = 0;  // global RANK of this part's first replica
  std::int32_t world_size = 0;   // replicas over every part (WORLD_SIZE)
  // task -> index (within the task, over every part) of this part's first replica
  std::map<std::string, std::int32_t> task_index_offsets;
  // How long the part may run once committed, resolved by the hub from the
  // job and its queue (docs/time-limits.md); the agent stops it there and
  // reports it Failed. 0 = none.
  std::int64_t time_limit_ms = 0;
  // The member cluster's own queue (Volcano's spec.queue) for the part's
  // objects, from the job's queue annotation gantry.io/member-queue; "": the
  // agent's --member-queue.
  std::string member_queue{};
  // The hub's node label of each network-topology tier, tier 1 first
  // (--topology-tier-label), sent with a whole gang that has a topology
  // constraint: the agent keeps the gang within the domains the hub placed
  // it by when it must choose other nodes. Empty: the part has none.
  std::vector<std::string> topology_tier_labels{};
  GANTRY_WIRE_FIELDS(Prepare, dispatch_id, part, parts, epoch, job, gang, task_replicas, nodes,
                     rank_offset, world_size, task_index_offsets, time_limit_ms, member_queue,
                     topology_tier_labels);
};

// agent -> hub: the part's resources are held, nothing is started. The agent
// of part 0 also says where the gang's rendezvous will be (MASTER_ADDR /
// MASTER_PORT of every replica of every part).
struct Admit {
  std::uint64_t dispatch_id = 0;
  std::string job;
  std::int32_t part = 0;
  std::string rendezvous_host;
  std::int32_t rendezvous_port = 0;
  GANTRY_WIRE_FIELDS(Admit, dispatch_id, job, part, rendezvous_host, rendezvous_port);
};

// agent -> hub: the part does not fit here now (or its hold expired before the
// commit came); nothing of it is held.
struct Reject {
  std::uint64_t dispatch_id = 0;
  std::string job;
  std::string reason;
  std::int32_t part = 0;
  GANTRY_WIRE_FIELDS(Reject, dispatch_id, job, reason, part);
};

// hub -> agent: every part admitted: start this part's replicas.
struct Commit {
  std::uint64_t dispatch_id = 0;
  std::string job;
  std::int32_t part = 0;
  std::string master_addr;  // part 0's rendezvous host
  std::int32_t master_port = 0;
  GANTRY_WIRE_FIELDS(Commit, dispatch_id, job, part, master_addr, master_port);
};

// hub -> agent: release a prepared part (another part was rejected, or the
// job moved on). On a part that already started it stops it, as Cancel does.
struct Abort {
  std::uint64_t dispatch_id = 0;
  std::string job;
  std::int32_t part = 0;
  std::string reason;
  GANTRY_WIRE_FIELDS(Abort, dispatch_id, job, part, reason);
};

// hub -> agent: stop a dispatch (kill its processes).
struct Cancel {
  std::uint64_t dispatch_id = 0;
  std::string job;
  GANTRY_WIRE_FIELDS(Cancel, dispatch_id, job);
};

// Elastic jobs (minAvailable below the replica count, docs/elastic.md): the
// part of a running dispatch changes size. hub -> agent. Growing,
// `task_replicas` is larger than the part runs and `nodes` says where the hub
// would put the added replicas (the agent re-checks them, as for a Prepare);
// the agent starts them and answers Resized{admitted: true}, or holds nothing
// and answers admitted: false. Shrinking (reclaim, preemption), `task_replicas`
// is smaller: the agent stops the highest-index replicas of each task, and
// their exits are no failure. Added in protocol 2 without a version change: an
// agent that does not know it answers ErrorReply, and the hub releases a
// growth that is not answered in time.
struct Resize {
  std::uint64_t dispatch_id = 0;
  std::string job;
  std::int32_t part = 0;
  // The dispatch's membership generation after this resize (GANTRY_ELASTIC_EPOCH).
  std::uint32_t elastic_epoch = 0;
  std::map<std::string, std::int32_t> task_replicas;  // task -> replicas of this part after it
  std::vector<PlacedReplica> nodes;                   // where the added replicas would go
  std::int32_t world_size = 0;                        // replicas over every part after it
  GANTRY_WIRE_FIELDS(Resize, dispatch_id, job, part, elastic_epoch, task_replicas, nodes,
                     world_size);
};

// agent -> hub: answer to a growing Resize of the same elastic_epoch.
struct Resized {
  std::uint64_t dispatch_id = 0;
  std::string job;
  std::int32_t part = 0;
  std::uint32_t elastic_epoch = 0;
  bool admitted = false;  // false: nothing of the growth is held or started
  std::string reason;     // why not
  GANTRY_WIRE_FIELDS(Resized, dispatch_id, job, part, elastic_epoch, admitted, reason);
};

// Either direction: answer to a frame that could not be handled.
struct ErrorReply {
  std::string code;  // "bad_version", "unknown_type", "bad_payload", "not_registered", ...
  std::string message;
  // code "not_leader" (a hub standing by for the store): the admin endpoint
  // of the hub that holds it, "" when it is not known; gantryctl asks it.
  std::string leader{};
  GANTRY_WIRE_FIELDS(ErrorReply, code, message, leader);
};

// ---------------------------------------------------------------- console <-> hub
struct SubmitJobRequest {
  std::string yaml;  // a Volcano Job document
  GANTRY_WIRE_FIELDS(SubmitJobRequest, yaml);
};

struct SubmitJobReply {
  bool ok = false;
  std::string job;
  std::string error;  // names the field and value when the YAML is refused
  GANTRY_WIRE_FIELDS(SubmitJobReply, ok, job, error);
};

// Many Volcano Job documents in one round trip: each is validated on its
// own (one refused document does not refuse the others), the accepted ones
// are recorded in one transaction and acknowledged together. A document with
// the annotation gantry.io/array (a Slurm array spec, "0-999") stands for a
// job per index, named NAME-INDEX (docs/job-arrays.md).
struct SubmitJobsRequest {
  std::vector<std::string> yamls;  // at most kMaxSubmitDocuments
  GANTRY_WIRE_FIELDS(SubmitJobsRequest, yamls);
};

// One job's outcome in a SubmitJobsReply.
struct SubmittedJob {
  std::int32_t document = 0;  // its document's index in SubmitJobsRequest::yamls
  bool ok = false;
  std::string job;    // the name (for an array's element NAME-INDEX)
  std::string error;  // names the field and value when refused
  GANTRY_WIRE_FIELDS(SubmittedJob, document, ok, job, error);
};

// Every job's outcome, in document order (an array's elements in index
// order); ok = false with `error` when the request as a whole was refused
// (too many documents), and then `jobs` is empty.
struct SubmitJobsReply {
  bool ok = false;
  std::string error;
  std::vector<SubmittedJob> jobs;
  GANTRY_WIRE_FIELDS(SubmitJobsReply, ok, error, jobs);
};

// Documents in one SubmitJobsRequest, and jobs one request may stand for
// once its arrays are expanded: the reply and the one transaction stay
// bounded. gantryctl sends larger sets in several requests.
constexpr std::size_t kMaxSubmitDocuments = 1'000;
constexpr std::size_t kMaxSubmitJobs = 10'000;

// What gantryctl get ... lists.
struct ListRequest {
  std::string kind;  // "jobs" | "clusters" | "queues" | "priorityclasses" | "events" | "hubs"
  // events: only this job's ("" every job's), and only those at or after
  // since_ms (0: every one the hub keeps).
  std::string job{};
  std::int64_t since_ms = 0;
  // get -w (jobs, clusters, queues, events): after the first reply the hub
  // keeps answering the same seq, as kubectl's watch does: a ListReply with
  // the rows that changed (events: the new ones) as they change, and an empty
  // one every kWatchKeepaliveMs, so the client knows the hub is there.
  bool watch = false;
  GANTRY_WIRE_FIELDS(ListRequest, kind, job, since_ms, watch);
};

constexpr std::int64_t kWatchKeepaliveMs = 10'000;

// One part of a job's placement: a cluster and the replicas of each task there.
struct JobPart {
  std::string cluster;
  std::map<std::string, std::int32_t> task_replicas;
  GANTRY_WIRE_FIELDS(JobPart, cluster, task_replicas);
};

// A cluster's score in a placement decision (higher is preferred).
struct ClusterScoreInfo {
  std::string cluster;
  std::int64_t score = 0;
  GANTRY_WIRE_FIELDS(ClusterScoreInfo, cluster, score);
};

struct JobInfo {
  std::string name;
  std::string queue;
  std::string phase;
  std::vector<std::string> clusters;  // where it runs or ran
  std::string reason;                 // why it is pending / failed
  std::int32_t priority = 0;
  std::int32_t min_available = 0;
  std::int32_t replicas = 0;
  std::int32_t requeues = 0;
  ResourceList requests;  // whole gang
  std::int64_t submitted_ms = 0;
  std::int64_t started_ms = 0;
  std::int64_t finished_ms = 0;
  std::vector<TaskStatus> tasks;
  // Where its current (or last) dispatch placed it: one part per cluster.
  std::vector<JobPart> parts;
  std::string placement;                 // the placement policy that ranks its clusters
  std::vector<ClusterScoreInfo> scores;  // per cluster, from its last placement decision
  std::uint32_t epoch = 0;               // placements so far
  std::int64_t time_limit_ms = 0;        // resolved at submit (docs/time-limits.md); 0 = none
  // A pending job the last pass reserved (docs/backfill.md): when and where it
  // is planned to start; 0 / empty when it has no reservation.
  std::int64_t planned_start_ms = 0;
  std::string planned_cluster;
  std::vector<std::string> planned_nodes;
  // Lifecycle policies (docs/volcano-compat.md): restarts so far out of the
  // job's maxRetry, the last event (its task, replica and exit code when a
  // replica failed) and the action taken ("" = the default behaviour).
  std::int32_t retries = 0;
  std::int32_t max_retry = 0;
  std::string last_event{};
  std::string last_event_task{};
  std::int32_t last_event_replica = -1;
  std::int32_t last_exit_code = 0;
  std::string last_action{};
  std::string submitter{};  // the name of the key that submitted it (docs/security.md)
  Labels labels{};          // metadata.labels (gantryctl get jobs -l)
  GANTRY_WIRE_FIELDS(JobInfo, name, queue, phase, clusters, reason, priority, min_available,
                     replicas, requeues, requests, submitted_ms, started_ms, finished_ms, tasks,
                     parts, placement, scores, epoch, time_limit_ms, planned_start_ms,
                     planned_cluster, planned_nodes, retries, max_retry, last_event,
                     last_event_task, last_event_replica, last_exit_code, last_action, submitter,
                     labels);
};

struct ClusterInfo {
  std::string name;
  bool ready = false;
  std::int32_t nodes = 0;
  Labels labels;
  ResourceList capacity;
  ResourceList allocated;
  std::int64_t last_seen_ms = 0;
  bool cordoned = false;   // no new placements (gantryctl cordon / drain)
  PlacementScores scores;  // as its agent last reported them
  // NVML's view over the cluster's GPUs (get clusters -o wide): how many
  // report, how busy they are on average, their memory, and how many sit idle
  // (0 % utilisation, no process) while allocated GPUs exist.
  std::int32_t gpus_reporting = 0;
  std::int32_t gpu_utilization_percent = 0;
  std::int64_t gpu_memory_used_bytes = 0;
  std::int64_t gpu_memory_total_bytes = 0;
  std::int32_t idle_gpus = 0;
  // Why its agent says it takes no work yet ("syncing"); "" when it did not say.
  std::string not_ready_reason{};
  // Its last usage report's fit_note: "" = node-level fit; else why the hub
  // knows only a summary of it ("no node models: summary fit").
  std::string fit_note{};
  GANTRY_WIRE_FIELDS(ClusterInfo, name, ready, nodes, labels, capacity, allocated, last_seen_ms,
                     cordoned, scores, gpus_reporting, gpu_utilization_percent,
                     gpu_memory_used_bytes, gpu_memory_total_bytes, idle_gpus, not_ready_reason,
                     fit_note);
};

struct QueueInfo {
  std::string name;
  std::string parent;
  std::int32_t weight = 1;
  std::int32_t priority = 0;
  std::string state;  // Open | Closing | Closed
  bool reclaimable = true;
  ResourceList allocated;
  // What the hub computes the queue deserves now: its declared deserved
  // where it has one, else its share by weight of what its parent deserves.
  ResourceList deserved;
  ResourceList capability;
  ResourceList guarantee;
  ResourceList pending;
  double share = 0.0;
  // Volcano spec.extendClusters ("name weight=W") and spec.affinity (a
  // summary): accepted and shown, not acted on.
  std::vector<std::string> extend_clusters;
  std::string affinity;
  // spec.deserved as the queue file declares it (empty: none declared).
  ResourceList declared_deserved;
  GANTRY_WIRE_FIELDS(QueueInfo, name, parent, weight, priority, state, reclaimable, allocated,
                     deserved, capability, guarantee, pending, share, extend_clusters, affinity,
                     declared_deserved);
};

// A scheduling.k8s.io/v1 PriorityClass as the hub knows it.
struct PriorityClassInfo {
  std::string name;
  std::int32_t value = 0;
  bool global_default = false;
  std::string preemption_policy;  // PreemptLowerPriority | Never
  std::string description;
  bool built_in = false;  // one of the embedded defaults
  GANTRY_WIRE_FIELDS(PriorityClassInfo, name, value, global_default, preemption_policy, description,
                     built_in);
};

// One thing that happened to a job (gantryctl get events, describe job).
struct EventInfo {
  std::int64_t at_ms = 0;
  std::string job;
  std::string queue;
  std::string message;  // "dispatched to east (worker x4); scores: east 870, west 420"
  GANTRY_WIRE_FIELDS(EventInfo, at_ms, job, queue, message);
};

// A hub on the job store (gantryctl get hubs): the one holding it leads,
// the others stand by to take it over (docs/state.md, "On etcd").
struct HubInfo {
  std::string name;   // "<host> <state directory>": who holds the store's claim
  std::string role;   // "leader" | "standby"
  std::string admin;  // the endpoints it advertises
  std::string agents;
  std::string http;             // "" without --http-listen
  std::string store;            // where its state is
  std::int64_t generation = 0;  // the leader's start generation (the store's); 0 for a standby
  std::int64_t started_ms = 0;
  GANTRY_WIRE_FIELDS(HubInfo, name, role, admin, agents, http, store, generation, started_ms);
};

struct ListReply {
  bool ok = true;
  std::string error;
  std::vector<JobInfo> jobs;
  std::vector<ClusterInfo> clusters;
  std::vector<QueueInfo> queues;
  std::vector<PriorityClassInfo> priority_classes;
  // What the operator should know whatever was asked (a degraded store,
  // runs held on a cluster); gantryctl prints each as "Warning: ...", as
  // kubectl prints an API server's warnings.
  std::vector<std::string> warnings{};
  std::vector<EventInfo> events{};  // oldest first
  std::vector<HubInfo> hubs{};      // leader first
  GANTRY_WIRE_FIELDS(ListReply, ok, error, jobs, clusters, queues, priority_classes, warnings,
                     events, hubs);
};

struct DescribeRequest {
  std::string kind;  // "job" | "queue" | "cluster"
  std::string name;
  GANTRY_WIRE_FIELDS(DescribeRequest, kind, name);
};

struct DescribeReply {
  bool ok = false;
  std::string error;
  JobInfo job;
  QueueInfo queue;
  ClusterInfo cluster;
  JobSpec spec;
  std::vector<std::string> events;      // human-readable history, oldest first
  std::vector<std::string> warnings{};  // as ListReply's
  GANTRY_WIRE_FIELDS(DescribeReply, ok, error, job, queue, cluster, spec, events, warnings);
};

struct CancelRequest {
  std::string kind;  // "job"
  std::string name;
  GANTRY_WIRE_FIELDS(CancelRequest, kind, name);
};

// apply -f (queues) and delete queue.
struct ApplyRequest {
  std::string yaml;
  GANTRY_WIRE_FIELDS(ApplyRequest, yaml);
};

struct DeleteRequest {
  std::string kind;  // "queue" | "priorityclass"
  std::string name;
  GANTRY_WIRE_FIELDS(DeleteRequest, kind, name);
};

// cordon / uncordon / drain cluster NAME.
struct ClusterActionRequest {
  std::string action;  // "cordon" | "uncordon" | "drain"
  std::string name;
  GANTRY_WIRE_FIELDS(ClusterActionRequest, action, name);
};

// gantryctl logs: what a replica printed (stdout and stderr), read by the
// agent that runs it. gantryctl asks the hub; the hub asks that cluster's
// agent with `stream` set, and passes the agent's LogsChunks on.
struct LogsRequest {
  std::string job;
  std::string task;              // "": the job's first task
  std::int32_t replica = 0;      // index within its task, over every part
  bool follow = false;           // -f: keep sending what it prints until it ends
  std::int32_t tail_lines = -1;  // --tail: the last N lines; -1: all of it
  std::uint64_t stream = 0;      // hub -> agent: which stream the chunks are for
  GANTRY_WIRE_FIELDS(LogsRequest, job, task, replica, follow, tail_lines, stream);
};

constexpr std::int32_t kMaxTailLines = 100'000;
constexpr std::size_t kMaxLogChunkBytes = 64 * 1024;

// Part of a replica's log, in order. The last one has `end` set: the log was
// read (the replica ended, or no -f), or `error` says why there is no more.
// While a -f stream waits for output the agent sends an empty chunk every
// kWatchKeepaliveMs, so the reader knows it is still there.
struct LogsChunk {
  std::uint64_t stream = 0;
  std::string data;
  bool end = false;
  std::string error;
  GANTRY_WIRE_FIELDS(LogsChunk, stream, data, end, error);
};

// hub -> agent: the reader of a stream went away; stop sending it.
struct LogsStop {
  std::uint64_t stream = 0;
  GANTRY_WIRE_FIELDS(LogsStop, stream);
};

// gantryctl web: a one-time login to the hub's web view (docs/web.md) for
// the key that asks, which a browser opens within a minute.
struct WebLoginRequest {
  std::string job;  // "": the page opens on the overview; else on this job's page
  GANTRY_WIRE_FIELDS(WebLoginRequest, job);
};

struct WebLoginReply {
  bool ok = false;
  std::string error;
  // http(s)://HOST:PORT/login?ticket=...: the hub's advertised HTTP address
  // ("" with --insecure, where the page needs no login: then the page itself)
  std::string url;
  std::string key;             // the key the login is for
  // The ticket works once, for this long after the answer (0: no ticket).
  // A duration, not a time: gantryctl's clock need not agree with the hub's.
  std::int64_t valid_ms = 0;
  GANTRY_WIRE_FIELDS(WebLoginReply, ok, error, url, key, valid_ms);
};

// Generic answer for cancel / apply / delete / cluster actions.
struct AdminResult {
  bool ok = false;
  std::string message;
  std::string error;
  GANTRY_WIRE_FIELDS(AdminResult, ok, message, error);
};

}  // namespace gantry::protocol
