// One instance of every wire message with every field set to a value that
// differs from its default (round_trip_test.cpp checks both), and a gtest
// printer for wire structs. Shared by the protocol tests. Messages compare with
// their defaulted operator== (member by member).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <ostream>

#include "protocol/envelope.hpp"

namespace gantry::protocol {

// Failed EXPECT_EQs print the struct as its msgpack map, keys and values.
template <WireStruct T>
void PrintTo(const T& message, std::ostream* out) {
  const std::string payload = encode_payload(message);
  *out << msgpack::unpack(payload.data(), payload.size()).get();
}

}  // namespace gantry::protocol

namespace gantry::protocol::testing {

inline ResourceList sample_resources(std::int64_t scale) {
  return {
      {"cpu", 1500 * scale}, {"memory", 17179869184000 * scale}, {"nvidia.com/gpu", 8000 * scale}};
}

inline JobSpec sample_job_spec() {
  ContainerSpec container{"trainer",
                          "registry.local/llm:2.1",
                          {"torchrun", "--nproc-per-node=8"},
                          {"train.py", "--epochs=3"},
                          {{"NCCL_DEBUG", "INFO"}, {"UTF8", "h\xc3\xa9llo\n\t\"quoted\""}},
                          sample_resources(1),
                          sample_resources(2)};
  const LifecyclePolicy restart{{"PodFailed", "PodEvicted"}, "RestartJob", 3, 90'000};
  const NetworkTopology rack{"soft", 2};
  TaskSpec master{"master",
                  2,
                  {{"nvidia.com/gpu.product", "H100"}},
                  {container},
                  3600,
                  1,
                  2,
                  {restart},
                  {{"worker"}, "any"},
                  "best-effort",
                  {7, 1, 6, rack},
                  {{"nvidia.com/gpu", "Equal", "present", "NoSchedule"}},
                  R"({"spec":{"containers":[{"name":"m","image":"x"}]}})"};
  TaskSpec worker = master;
  worker.name = "worker";
  worker.replicas = 7;
  worker.node_selector = {{"zone", "b"}};
  worker.containers = {container, container};
  worker.active_deadline_seconds = 5400;
  worker.depends_on = {{"master"}, "all"};
  return JobSpec{"llm-pretrain",
                 "research",
                 "high-priority",
                 1000,
                 6,
                 5,
                 {{"gantry.io/sim-duration", "30s"}},
                 {master, worker},
                 "llm-",
                 {{"team", "nlp"}},
                 4,
                 600,
                 {restart},
                 {{"pytorch", {"--port=23456"}}},
                 rack};
}

// Every field of a resolved gang set, none to its default.
inline ResolvedGang sample_resolved_gang() {
  const ResolvedTask master{"master",
                            2,
                            sample_resources(1),
                            {{"nvidia.com/gpu.product", "H100"}},
                            {{"nvidia.com/gpu", "Equal", "present", "NoSchedule"}},
                            1,
                            1,
                            {"soft", 2}};
  ResolvedTask worker = master;
  worker.name = "worker";
  worker.replicas = 7;
  worker.per_replica = sample_resources(2);
  worker.partition_size = 7;
  worker.partition_topology = {"hard", 1};
  return ResolvedGang{{master, worker}, 6, {"soft", 3}};
}

inline TaskStatus sample_task_status(const char* name) {
  return TaskStatus{name, 1, 2, 3, 4};
}

inline JobInfo sample_job_info() {
  return JobInfo{
      "llm-pretrain",
      "research",
      "Running",
      {"east", "west"},
      "waiting for 8 GPUs",
      1000,
      6,
      8,
      2,
      sample_resources(8),
      1714550400123,
      1714550460456,
      1714554000789,
      {sample_task_status("master"), sample_task_status("worker")},
      {JobPart{"east", {{"master", 1}, {"worker", 3}}}, JobPart{"west", {{"worker", 4}}}},
      "gpu-available",
      {ClusterScoreInfo{"east", 40}, ClusterScoreInfo{"west", -100}},
      3,
      5'400'000,
      1714557600000,
      "west",
      {"west-1", "west-2"},
      1,
      3,
      "PodFailed",
      "worker",
      2,
      137,
      "RestartJob",
      "alice",
      {{"gantry.io/array-job", "sweep"}}};
}

inline PlacementScores sample_scores() {
  return PlacementScores{12, 34, -56, 78, -90, 100, 1714550460000};
}

inline GpuUsage sample_gpu(std::int32_t index) {
  return GpuUsage{index, "NVIDIA H100 80GB HBM3", 85'520'809'984, 1'073'741'824 + index, 37, 2};
}

inline ClusterInfo sample_cluster_info() {
  return ClusterInfo{"east",
                     true,
                     16,
                     {{"region", "eu"}},
                     sample_resources(16),
                     sample_resources(3),
                     1714550400999,
                     true,
                     sample_scores(),
                     8,
                     41,
                     7'000'000'000,
                     640'000'000'000,
                     3,
                     "syncing",
                     "no node models: summary fit"};
}

inline QueueInfo sample_queue_info() {
  return QueueInfo{"research",
                   "root",
                   7,
                   3,
                   "Closed",
                   false,
                   sample_resources(1),
                   sample_resources(2),
                   sample_resources(3),
                   sample_resources(4),
                   sample_resources(5),
                   0.375,
                   {"east weight=2"},
                   "clusterAffinity: east",
                   sample_resources(6)};
}

inline PriorityClassInfo sample_priority_class_info() {
  return PriorityClassInfo{"urgent", 100000, true, "Never", "on-call work", true};
}

inline NodeUsage sample_node(const char* name) {
  return NodeUsage{name,
                   {{"nvidia.com/gpu.product", "H100"}},
                   sample_resources(2),
                   sample_resources(1),
                   "H100",
                   {sample_gpu(0), sample_gpu(1)},
                   {{"nvidia.com/gpu", "present", "NoSchedule"}}};
}

template <class T>
T sample();

template <>
inline Hello sample<Hello>() {
  return Hello{
      "east",
      {{"region", "eu"}},
      "0.1.0",
      {RunningDispatch{
           7, "resnet", {{"master", "east-a100-0"}, {"worker", "east-a100-1"}}, 1, 2, false},
       RunningDispatch{std::numeric_limits<std::uint64_t>::max(), "idle", {}, 3, 4, true}},
      {StatusUpdate{6, "done", "Completed", {{"worker", 0, 0, 2, 0}}, ""}}};
}
template <>
inline Welcome sample<Welcome>() {
  return Welcome{0xFEEDFACECAFEULL, 250, 5};
}
template <>
inline Heartbeat sample<Heartbeat>() {
  return Heartbeat{"east", 42};
}
template <>
inline UsageReport sample<UsageReport>() {
  return UsageReport{"east",    {sample_node("n1"), sample_node("n2")}, {3, 9}, sample_scores(),
                     "syncing", "no node models: summary fit"};
}
template <>
inline NodeReport sample<NodeReport>() {
  return NodeReport{
      "east",          "n1", 96'000,          1'099'511'627'776,
      824'633'720'832, 3.25, {sample_gpu(0)}, "GPU 1: nvmlDeviceGetMemoryInfo failed: GPU is lost"};
}
template <>
inline Resize sample<Resize>() {
  return Resize{77, "resnet", 1, 3, {{"worker", 4}}, {{"worker", "east-a100-2"}}, 6};
}
template <>
inline Resized sample<Resized>() {
  return Resized{77, "resnet", 1, 3, true, "node east-a100-2 is full"};
}
template <>
inline Prepare sample<Prepare>() {
  return Prepare{77,
                 1,
                 2,
                 5,
                 sample_job_spec(),
                 sample_resolved_gang(),
                 {{"master", 1}, {"worker", 3}},
                 {{"master", "east-a100-0"}, {"worker", "east-a100-1"}},
                 4,
                 9,
                 {{"master", 1}, {"worker", 2}},
                 5'400'000,
                 "research-gpu",
                 {"nvidia.com/gpu.clique", "topology.kubernetes.io/zone"}};
}
template <>
inline Admit sample<Admit>() {
  return Admit{77, "llm-pretrain", 1, "10.0.0.7", 29500};
}
template <>
inline Reject sample<Reject>() {
  return Reject{77, "llm-pretrain", "node n1 has 0 GPUs free", 1};
}
template <>
inline Commit sample<Commit>() {
  return Commit{77, "llm-pretrain", 1, "10.0.0.7", 29500};
}
template <>
inline Abort sample<Abort>() {
  return Abort{77, "llm-pretrain", 1, "part 0 was rejected by east"};
}
template <>
inline StatusUpdate sample<StatusUpdate>() {
  return StatusUpdate{77,
                      "llm-pretrain",
                      "Failed",
                      {sample_task_status("worker")},
                      "worker-3 exited 137",
                      "PodFailed",
                      "worker",
                      3,
                      137};
}
template <>
inline Cancel sample<Cancel>() {
  return Cancel{77, "llm-pretrain"};
}
template <>
inline ErrorReply sample<ErrorReply>() {
  return ErrorReply{"not_leader", "this hub stands by", "tcp://hub-0:7801"};
}
template <>
inline SubmitJobRequest sample<SubmitJobRequest>() {
  return SubmitJobRequest{"apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\n"};
}
template <>
inline SubmitJobReply sample<SubmitJobReply>() {
  return SubmitJobReply{true, "llm-pretrain", "spec.tasks[0].replicas: must be positive"};
}
template <>
inline ListRequest sample<ListRequest>() {
  return ListRequest{"events", "llm-pretrain", 1714550400000, true};
}
template <>
inline ListReply sample<ListReply>() {
  return ListReply{
      false,
      "partial",
      {sample_job_info()},
      {sample_cluster_info()},
      {sample_queue_info()},
      {sample_priority_class_info()},
      {"the job store is degraded"},
      {EventInfo{1714550400000, "llm-pretrain", "research",
                 "dispatched to east (worker x4); scores: east 870"}},
      {HubInfo{"hub-0 /var/lib/gantry", "leader", "tcp://hub-0:7801", "tcp://hub-0:7800",
               "hub-0:7802", "etcd http://etcd:2379 prefix /gantry/", 3, 1714550400000}}};
}
template <>
inline DescribeRequest sample<DescribeRequest>() {
  return DescribeRequest{"job", "llm-pretrain"};
}
template <>
inline DescribeReply sample<DescribeReply>() {
  return DescribeReply{true,
                       "none",
                       sample_job_info(),
                       sample_queue_info(),
                       sample_cluster_info(),
                       sample_job_spec(),
                       {"submitted", "dispatched to east"},
                       {"cluster east runs 1 dispatch(es) from before this hub's state was made"}};
}
template <>
inline CancelRequest sample<CancelRequest>() {
  return CancelRequest{"job", "llm-pretrain"};
}
template <>
inline ApplyRequest sample<ApplyRequest>() {
  return ApplyRequest{"kind: Queue\n"};
}
template <>
inline DeleteRequest sample<DeleteRequest>() {
  return DeleteRequest{"queue", "research"};
}
template <>
inline ClusterActionRequest sample<ClusterActionRequest>() {
  return ClusterActionRequest{"drain", "east"};
}
template <>
inline LogsRequest sample<LogsRequest>() {
  return LogsRequest{"llm-pretrain", "worker", 3, true, 100, 42};
}
template <>
inline LogsChunk sample<LogsChunk>() {
  return LogsChunk{42, "step 100 loss 2.31\n", true, "the replica's log was removed"};
}
template <>
inline LogsStop sample<LogsStop>() {
  return LogsStop{42};
}
template <>
inline WebLoginRequest sample<WebLoginRequest>() {
  return WebLoginRequest{"llm-pretrain"};
}
template <>
inline WebLoginReply sample<WebLoginReply>() {
  return WebLoginReply{true, "the hub serves no web view", "https://hub:7802/login?ticket=ab12",
                       "alice", 60000};
}
template <>
inline SubmitJobsRequest sample<SubmitJobsRequest>() {
  return SubmitJobsRequest{{"apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\n", "kind: Job\n"}};
}
template <>
inline SubmitJobsReply sample<SubmitJobsReply>() {
  return SubmitJobsReply{true,
                         "documents: 1001 exceeds the limit of 1000 per request",
                         {{0, true, "sweep-0", ""}, {1, false, "", "metadata.name: is required"}}};
}
template <>
inline AdminResult sample<AdminResult>() {
  return AdminResult{true, "queue research configured", "spec.weight: must be 1..65535"};
}

}  // namespace gantry::protocol::testing
