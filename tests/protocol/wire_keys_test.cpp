// The wire contract, written out: each message's numeric type and the exact
// msgpack map keys, in order, of it and of every struct inside it. A peer built
// from an older tree decodes by these numbers and keys, so a renamed field or a
// renumbered message must fail here, not in production. Change an expected value
// only together with a protocol version bump.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "protocol/envelope.hpp"
#include "tests/protocol/sample_messages.hpp"

namespace gantry::protocol {
namespace {

using Keys = std::vector<std::string>;

struct ExpectedMessage {
  std::string name;
  std::uint16_t type;
  Keys keys;
};

const std::vector<ExpectedMessage> kMessages = {
    {"Hello", 1, {"cluster", "labels", "agent_version", "running", "ended"}},
    {"Welcome", 2, {"hub_epoch", "heartbeat_interval_ms", "heartbeat_liveness"}},
    {"Heartbeat", 3, {"cluster", "hub_epoch"}},
    {"UsageReport",
     4,
     {"cluster", "nodes", "accounted_dispatches", "scores", "not_ready_reason", "fit_note"}},
    {"Admit", 6, {"dispatch_id", "job", "part", "rendezvous_host", "rendezvous_port"}},
    {"Reject", 7, {"dispatch_id", "job", "reason", "part"}},
    {"StatusUpdate",
     8,
     {"dispatch_id", "job", "phase", "tasks", "message", "event", "task", "replica", "exit_code"}},
    {"Cancel", 9, {"dispatch_id", "job"}},
    {"ErrorReply", 10, {"code", "message", "leader"}},
    {"Prepare",
     11,
     {"dispatch_id", "part", "parts", "epoch", "job", "gang", "task_replicas", "nodes",
      "rank_offset", "world_size", "task_index_offsets", "time_limit_ms", "member_queue",
      "topology_tier_labels"}},
    {"Commit", 12, {"dispatch_id", "job", "part", "master_addr", "master_port"}},
    {"Abort", 13, {"dispatch_id", "job", "part", "reason"}},
    {"NodeReport",
     14,
     {"cluster", "node", "cpu_milli", "memory_bytes", "memory_available_bytes", "load1", "gpus",
      "gpu_error"}},
    {"Resize",
     15,
     {"dispatch_id", "job", "part", "elastic_epoch", "task_replicas", "nodes", "world_size"}},
    {"Resized", 16, {"dispatch_id", "job", "part", "elastic_epoch", "admitted", "reason"}},
    {"SubmitJobRequest", 100, {"yaml"}},
    {"SubmitJobReply", 101, {"ok", "job", "error"}},
    {"ListRequest", 102, {"kind", "job", "since_ms", "watch"}},
    {"ListReply",
     103,
     {"ok", "error", "jobs", "clusters", "queues", "priority_classes", "warnings", "events",
      "hubs"}},
    {"DescribeRequest", 104, {"kind", "name"}},
    {"DescribeReply",
     105,
     {"ok", "error", "job", "queue", "cluster", "spec", "events", "warnings"}},
    {"CancelRequest", 106, {"kind", "name"}},
    {"ApplyRequest", 107, {"yaml"}},
    {"DeleteRequest", 108, {"kind", "name"}},
    {"AdminResult", 109, {"ok", "message", "error"}},
    {"ClusterActionRequest", 110, {"action", "name"}},
    {"LogsRequest", 111, {"job", "task", "replica", "follow", "tail_lines", "stream"}},
    {"LogsChunk", 112, {"stream", "data", "end", "error"}},
    {"LogsStop", 113, {"stream"}},
    {"WebLoginRequest", 114, {"job"}},
    {"WebLoginReply", 115, {"ok", "error", "url", "key", "valid_ms"}},
    {"SubmitJobsRequest", 116, {"yamls"}},
    {"SubmitJobsReply", 117, {"ok", "error", "jobs"}},
};

Keys map_keys(const std::string& payload) {
  const msgpack::object_handle handle = msgpack::unpack(payload.data(), payload.size());
  const msgpack::object& map = handle.get();
  EXPECT_EQ(map.type, msgpack::type::MAP);
  if (map.type != msgpack::type::MAP) return {};
  Keys keys;
  for (std::uint32_t i = 0; i < map.via.map.size; ++i) {
    keys.push_back(map.via.map.ptr[i].key.as<std::string>());
  }
  return keys;
}

const ExpectedMessage* expected_message(const std::string& name) {
  for (const ExpectedMessage& message : kMessages) {
    if (message.name == name) return &message;
  }
  return nullptr;
}

// Reads the type number and the keys back from an encoded frame, not from the
// declarations they are meant to pin.
template <class T>
void expect_pinned() {
  SCOPED_TRACE(T::kWireName);
  const ExpectedMessage* expected = expected_message(T::kWireName);
  ASSERT_NE(expected, nullptr) << "a new message: add its type and keys to kMessages";
  DecodeError error;
  const auto envelope = decode_envelope(encode(testing::sample<T>(), 3), error);
  ASSERT_TRUE(envelope) << error.message;
  EXPECT_EQ(static_cast<std::uint16_t>(envelope->type), expected->type);
  EXPECT_EQ(map_keys(envelope->payload), expected->keys);
}

template <class... Messages>
void expect_all_pinned(MessageList<Messages...>) {
  (expect_pinned<Messages>(), ...);
}

TEST(WireKeys, EveryMessageKeepsItsTypeNumberAndKeys) {
  expect_all_pinned(AllMessages{});
}

TEST(WireKeys, EveryPinnedMessageIsKnownUnderItsName) {
  for (const ExpectedMessage& message : kMessages) {
    SCOPED_TRACE(message.name);
    EXPECT_TRUE(is_known_message_type(message.type));
    EXPECT_EQ(message_type_name(static_cast<MessageType>(message.type)), message.name);
  }
  int known = 0;
  for (std::uint32_t raw = 0; raw <= 0xFFFF; ++raw) {
    if (is_known_message_type(static_cast<std::uint16_t>(raw))) ++known;
  }
  EXPECT_EQ(known, static_cast<int>(kMessages.size()));
}

template <class T>
void expect_keys(const Keys& expected) {
  EXPECT_EQ(map_keys(encode_payload(T{})), expected) << T::kWireName;
}

TEST(WireKeys, EveryStructInsideAMessageKeepsItsKeys) {
  expect_keys<EnvVar>({"name", "value"});
  expect_keys<ContainerSpec>({"name", "image", "command", "args", "env", "requests", "limits"});
  expect_keys<TaskSpec>({"name", "replicas", "node_selector", "containers",
                         "active_deadline_seconds", "min_available", "max_retry", "policies",
                         "depends_on", "topology_policy", "partition_policy", "tolerations",
                         "pod_template"});
  expect_keys<Toleration>({"key", "op", "value", "effect"});
  expect_keys<Taint>({"key", "value", "effect"});
  expect_keys<JobSpec>({"name", "queue", "priority_class", "priority", "min_available", "max_retry",
                        "annotations", "tasks", "generate_name", "labels", "min_success",
                        "ttl_seconds_after_finished", "policies", "plugins", "network_topology"});
  expect_keys<LifecyclePolicy>({"events", "action", "exit_code", "timeout_ms"});
  expect_keys<NetworkTopology>({"mode", "highest_tier_allowed"});
  expect_keys<PartitionPolicy>(
      {"total_partitions", "partition_size", "min_partitions", "network_topology"});
  expect_keys<TaskDependency>({"names", "iteration"});
  expect_keys<TaskStatus>({"name", "pending", "running", "succeeded", "failed"});
  expect_keys<NodeUsage>(
      {"name", "labels", "allocatable", "allocated", "gpu_model", "gpus", "taints"});
  expect_keys<GpuUsage>({"index", "product", "memory_total_bytes", "memory_used_bytes",
                         "utilization_percent", "processes"});
  expect_keys<PlacementScores>({"cpu_node_available", "cpu_cluster_available", "mem_node_available",
                                "mem_cluster_available", "gpu_node_available",
                                "gpu_cluster_available", "valid_until_ms"});
  expect_keys<TopologyRule>({"mode", "highest_tier"});
  expect_keys<ResolvedTask>({"name", "replicas", "per_replica", "node_selector", "tolerations",
                             "partition_size", "min_partitions", "partition_topology"});
  expect_keys<ResolvedGang>({"tasks", "min_available", "topology"});
  expect_keys<PlacedReplica>({"task", "node"});
  expect_keys<RunningDispatch>({"dispatch_id", "job", "replicas", "part", "parts", "committed"});
  expect_keys<JobPart>({"cluster", "task_replicas"});
  expect_keys<ClusterScoreInfo>({"cluster", "score"});
  expect_keys<JobInfo>({"name",
                        "queue",
                        "phase",
                        "clusters",
                        "reason",
                        "priority",
                        "min_available",
                        "replicas",
                        "requeues",
                        "requests",
                        "submitted_ms",
                        "started_ms",
                        "finished_ms",
                        "tasks",
                        "parts",
                        "placement",
                        "scores",
                        "epoch",
                        "time_limit_ms",
                        "planned_start_ms",
                        "planned_cluster",
                        "planned_nodes",
                        "retries",
                        "max_retry",
                        "last_event",
                        "last_event_task",
                        "last_event_replica",
                        "last_exit_code",
                        "last_action",
                        "submitter",
                        "labels"});
  expect_keys<SubmittedJob>({"document", "ok", "job", "error"});
  expect_keys<ClusterInfo>({"name", "ready", "nodes", "labels", "capacity", "allocated",
                            "last_seen_ms", "cordoned", "scores", "gpus_reporting",
                            "gpu_utilization_percent", "gpu_memory_used_bytes",
                            "gpu_memory_total_bytes", "idle_gpus", "not_ready_reason", "fit_note"});
  expect_keys<QueueInfo>({"name", "parent", "weight", "priority", "state", "reclaimable",
                          "allocated", "deserved", "capability", "guarantee", "pending", "share",
                          "extend_clusters", "affinity", "declared_deserved"});
  expect_keys<PriorityClassInfo>(
      {"name", "value", "global_default", "preemption_policy", "description", "built_in"});
  expect_keys<EventInfo>({"at_ms", "job", "queue", "message"});
  expect_keys<HubInfo>(
      {"name", "role", "admin", "agents", "http", "store", "generation", "started_ms"});
}

// The direction of each message decides which hub socket and which agent accept
// it (actors/inbound.cpp, agents/agent_loop.cpp): pinned too, at compile time.
static_assert(std::is_same_v<MessagesSentIn<Direction::kAgentToHub>,
                             MessageList<Hello, Heartbeat, UsageReport, Admit, Reject, StatusUpdate,
                                         ErrorReply, Resized, LogsChunk>>);
static_assert(std::is_same_v<MessagesSentIn<Direction::kHubToAgent>,
                             MessageList<Welcome, Heartbeat, Cancel, ErrorReply, Prepare, Commit,
                                         Abort, Resize, LogsRequest, LogsStop>>);
static_assert(std::is_same_v<MessagesSentIn<Direction::kConsoleToHub>,
                             MessageList<SubmitJobRequest, ListRequest, DescribeRequest,
                                         CancelRequest, ApplyRequest, DeleteRequest,
                                         ClusterActionRequest, LogsRequest, WebLoginRequest,
                                         SubmitJobsRequest>>);
static_assert(std::is_same_v<MessagesSentIn<Direction::kHubToConsole>,
                             MessageList<ErrorReply, SubmitJobReply, ListReply, DescribeReply,
                                         AdminResult, LogsChunk, WebLoginReply, SubmitJobsReply>>);
static_assert(std::is_same_v<MessagesSentIn<Direction::kNodeToCluster>, MessageList<NodeReport>>);

}  // namespace
}  // namespace gantry::protocol
