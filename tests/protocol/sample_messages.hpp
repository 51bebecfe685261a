// One instance of every wire message with every field set to a value that
// differs from its default, and field-by-field comparisons. Shared by the
// round-trip and robustness tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "protocol/messages.hpp"

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
  TaskSpec master{"master", 2, {{"nvidia.com/gpu.product", "H100"}}, {container}};
  TaskSpec worker{"worker", 7, {{"zone", "b"}}, {container, container}};
  return JobSpec{
      "llm-pretrain",  "research", "high-priority", 1000, 6, 5, {{"gantry.io/sim-duration", "30s"}},
      {master, worker}};
}

inline TaskStatus sample_task_status(const char* name) {
  return TaskStatus{name, 1, 2, 3, 4};
}

inline JobInfo sample_job_info() {
  return JobInfo{"llm-pretrain",
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
                 {sample_task_status("master"), sample_task_status("worker")}};
}

inline ClusterInfo sample_cluster_info() {
  return ClusterInfo{
      "east",       true, 16, {{"region", "eu"}}, sample_resources(16), sample_resources(3),
      1714550400999};
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
                   0.375};
}

inline NodeUsage sample_node(const char* name) {
  return NodeUsage{
      name, {{"nvidia.com/gpu.product", "H100"}}, sample_resources(2), sample_resources(1), "H100"};
}

template <class T>
T sample();

template <>
inline Hello sample<Hello>() {
  return Hello{"east",
               {{"region", "eu"}},
               "0.1.0",
               {RunningDispatch{7, "resnet", {{"master", "east-a100-0"}, {"worker", "east-a100-1"}}},
                RunningDispatch{std::numeric_limits<std::uint64_t>::max(), "idle", {}}},
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
  return UsageReport{"east", {sample_node("n1"), sample_node("n2")}, {3, 9}};
}
template <>
inline Dispatch sample<Dispatch>() {
  return Dispatch{77, sample_job_spec(), {{"master", 1}, {"worker", 3}}};
}
template <>
inline Admit sample<Admit>() {
  return Admit{77, "llm-pretrain"};
}
template <>
inline Reject sample<Reject>() {
  return Reject{77, "llm-pretrain", "node n1 has 0 GPUs free"};
}
template <>
inline StatusUpdate sample<StatusUpdate>() {
  return StatusUpdate{
      77, "llm-pretrain", "Failed", {sample_task_status("worker")}, "worker-3 exited 137"};
}
template <>
inline Cancel sample<Cancel>() {
  return Cancel{77, "llm-pretrain"};
}
template <>
inline ErrorReply sample<ErrorReply>() {
  return ErrorReply{"not_registered", "say Hello first"};
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
  return ListRequest{"clusters"};
}
template <>
inline ListReply sample<ListReply>() {
  return ListReply{
      false, "partial", {sample_job_info()}, {sample_cluster_info()}, {sample_queue_info()}};
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
                       {"submitted", "dispatched to east"}};
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
inline AdminResult sample<AdminResult>() {
  return AdminResult{true, "queue research configured", "spec.weight: must be 1..65535"};
}

// ------------------------------------------------------------ comparisons
// Field by field (not via re-encoding) so a codec that drops or mangles a field
// symmetrically on both sides is still caught.

template <class T>
void expect_same_vector(const std::vector<T>& a, const std::vector<T>& b);

inline void expect_same(const EnvVar& a, const EnvVar& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.value, b.value);
}
inline void expect_same(const ContainerSpec& a, const ContainerSpec& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.image, b.image);
  EXPECT_EQ(a.command, b.command);
  EXPECT_EQ(a.args, b.args);
  expect_same_vector(a.env, b.env);
  EXPECT_EQ(a.requests, b.requests);
  EXPECT_EQ(a.limits, b.limits);
}
inline void expect_same(const TaskSpec& a, const TaskSpec& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.replicas, b.replicas);
  EXPECT_EQ(a.node_selector, b.node_selector);
  expect_same_vector(a.containers, b.containers);
}
inline void expect_same(const JobSpec& a, const JobSpec& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.queue, b.queue);
  EXPECT_EQ(a.priority_class, b.priority_class);
  EXPECT_EQ(a.priority, b.priority);
  EXPECT_EQ(a.min_available, b.min_available);
  EXPECT_EQ(a.max_retry, b.max_retry);
  EXPECT_EQ(a.annotations, b.annotations);
  expect_same_vector(a.tasks, b.tasks);
}
inline void expect_same(const TaskStatus& a, const TaskStatus& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.pending, b.pending);
  EXPECT_EQ(a.running, b.running);
  EXPECT_EQ(a.succeeded, b.succeeded);
  EXPECT_EQ(a.failed, b.failed);
}
inline void expect_same(const NodeUsage& a, const NodeUsage& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.allocatable, b.allocatable);
  EXPECT_EQ(a.allocated, b.allocated);
  EXPECT_EQ(a.gpu_model, b.gpu_model);
}
inline void expect_same(const StatusUpdate& a, const StatusUpdate& b);
inline void expect_same(const Hello& a, const Hello& b) {
  EXPECT_EQ(a.cluster, b.cluster);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.agent_version, b.agent_version);
  ASSERT_EQ(a.ended.size(), b.ended.size());
  for (std::size_t i = 0; i < a.ended.size(); ++i) expect_same(a.ended[i], b.ended[i]);
  ASSERT_EQ(a.running.size(), b.running.size());
  for (std::size_t i = 0; i < a.running.size(); ++i) {
    EXPECT_EQ(a.running[i].dispatch_id, b.running[i].dispatch_id);
    EXPECT_EQ(a.running[i].job, b.running[i].job);
    ASSERT_EQ(a.running[i].replicas.size(), b.running[i].replicas.size());
    for (std::size_t r = 0; r < a.running[i].replicas.size(); ++r) {
      EXPECT_EQ(a.running[i].replicas[r].task, b.running[i].replicas[r].task);
      EXPECT_EQ(a.running[i].replicas[r].node, b.running[i].replicas[r].node);
    }
  }
}
inline void expect_same(const Welcome& a, const Welcome& b) {
  EXPECT_EQ(a.hub_epoch, b.hub_epoch);
  EXPECT_EQ(a.heartbeat_interval_ms, b.heartbeat_interval_ms);
  EXPECT_EQ(a.heartbeat_liveness, b.heartbeat_liveness);
}
inline void expect_same(const Heartbeat& a, const Heartbeat& b) {
  EXPECT_EQ(a.cluster, b.cluster);
  EXPECT_EQ(a.hub_epoch, b.hub_epoch);
}
inline void expect_same(const UsageReport& a, const UsageReport& b) {
  EXPECT_EQ(a.cluster, b.cluster);
  expect_same_vector(a.nodes, b.nodes);
  EXPECT_EQ(a.accounted_dispatches, b.accounted_dispatches);
}
inline void expect_same(const Dispatch& a, const Dispatch& b) {
  EXPECT_EQ(a.dispatch_id, b.dispatch_id);
  expect_same(a.job, b.job);
  EXPECT_EQ(a.task_replicas, b.task_replicas);
}
inline void expect_same(const Admit& a, const Admit& b) {
  EXPECT_EQ(a.dispatch_id, b.dispatch_id);
  EXPECT_EQ(a.job, b.job);
}
inline void expect_same(const Reject& a, const Reject& b) {
  EXPECT_EQ(a.dispatch_id, b.dispatch_id);
  EXPECT_EQ(a.job, b.job);
  EXPECT_EQ(a.reason, b.reason);
}
inline void expect_same(const StatusUpdate& a, const StatusUpdate& b) {
  EXPECT_EQ(a.dispatch_id, b.dispatch_id);
  EXPECT_EQ(a.job, b.job);
  EXPECT_EQ(a.phase, b.phase);
  expect_same_vector(a.tasks, b.tasks);
  EXPECT_EQ(a.message, b.message);
}
inline void expect_same(const Cancel& a, const Cancel& b) {
  EXPECT_EQ(a.dispatch_id, b.dispatch_id);
  EXPECT_EQ(a.job, b.job);
}
inline void expect_same(const ErrorReply& a, const ErrorReply& b) {
  EXPECT_EQ(a.code, b.code);
  EXPECT_EQ(a.message, b.message);
}
inline void expect_same(const SubmitJobRequest& a, const SubmitJobRequest& b) {
  EXPECT_EQ(a.yaml, b.yaml);
}
inline void expect_same(const SubmitJobReply& a, const SubmitJobReply& b) {
  EXPECT_EQ(a.ok, b.ok);
  EXPECT_EQ(a.job, b.job);
  EXPECT_EQ(a.error, b.error);
}
inline void expect_same(const ListRequest& a, const ListRequest& b) {
  EXPECT_EQ(a.kind, b.kind);
}
inline void expect_same(const JobInfo& a, const JobInfo& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.queue, b.queue);
  EXPECT_EQ(a.phase, b.phase);
  EXPECT_EQ(a.clusters, b.clusters);
  EXPECT_EQ(a.reason, b.reason);
  EXPECT_EQ(a.priority, b.priority);
  EXPECT_EQ(a.min_available, b.min_available);
  EXPECT_EQ(a.replicas, b.replicas);
  EXPECT_EQ(a.requeues, b.requeues);
  EXPECT_EQ(a.requests, b.requests);
  EXPECT_EQ(a.submitted_ms, b.submitted_ms);
  EXPECT_EQ(a.started_ms, b.started_ms);
  EXPECT_EQ(a.finished_ms, b.finished_ms);
  expect_same_vector(a.tasks, b.tasks);
}
inline void expect_same(const ClusterInfo& a, const ClusterInfo& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.ready, b.ready);
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.capacity, b.capacity);
  EXPECT_EQ(a.allocated, b.allocated);
  EXPECT_EQ(a.last_seen_ms, b.last_seen_ms);
}
inline void expect_same(const QueueInfo& a, const QueueInfo& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.parent, b.parent);
  EXPECT_EQ(a.weight, b.weight);
  EXPECT_EQ(a.priority, b.priority);
  EXPECT_EQ(a.state, b.state);
  EXPECT_EQ(a.reclaimable, b.reclaimable);
  EXPECT_EQ(a.allocated, b.allocated);
  EXPECT_EQ(a.deserved, b.deserved);
  EXPECT_EQ(a.capability, b.capability);
  EXPECT_EQ(a.guarantee, b.guarantee);
  EXPECT_EQ(a.pending, b.pending);
  EXPECT_EQ(a.share, b.share);  // exact: msgpack carries the IEEE double bit for bit
}
inline void expect_same(const ListReply& a, const ListReply& b) {
  EXPECT_EQ(a.ok, b.ok);
  EXPECT_EQ(a.error, b.error);
  expect_same_vector(a.jobs, b.jobs);
  expect_same_vector(a.clusters, b.clusters);
  expect_same_vector(a.queues, b.queues);
}
inline void expect_same(const DescribeRequest& a, const DescribeRequest& b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.name, b.name);
}
inline void expect_same(const DescribeReply& a, const DescribeReply& b) {
  EXPECT_EQ(a.ok, b.ok);
  EXPECT_EQ(a.error, b.error);
  expect_same(a.job, b.job);
  expect_same(a.queue, b.queue);
  expect_same(a.cluster, b.cluster);
  expect_same(a.spec, b.spec);
  EXPECT_EQ(a.events, b.events);
}
inline void expect_same(const CancelRequest& a, const CancelRequest& b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.name, b.name);
}
inline void expect_same(const ApplyRequest& a, const ApplyRequest& b) {
  EXPECT_EQ(a.yaml, b.yaml);
}
inline void expect_same(const DeleteRequest& a, const DeleteRequest& b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.name, b.name);
}
inline void expect_same(const AdminResult& a, const AdminResult& b) {
  EXPECT_EQ(a.ok, b.ok);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.error, b.error);
}

template <class T>
void expect_same_vector(const std::vector<T>& a, const std::vector<T>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE("element " + std::to_string(i));
    expect_same(a[i], b[i]);
  }
}

}  // namespace gantry::protocol::testing
