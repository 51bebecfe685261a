// Node taints and task tolerations (issue 25): the matching rules, exactly as
// Kubernetes' Toleration.ToleratesTaint, and the one node filter every
// placement goes through, so that a task is never counted on a node whose
// taints it does not tolerate.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hub/job_request.hpp"
#include "hub/placement_policy.hpp"
#include "hub/tolerations.hpp"
#include "tests/core/reconciler_harness.hpp"

namespace gantry::hub {
namespace {

using protocol::Taint;
using protocol::Toleration;
using testing::gpus;
using testing::nodes;

const Taint kGpuPresent{"nvidia.com/gpu", "present", "NoSchedule"};
const Toleration kToleratesGpu{"nvidia.com/gpu", "Exists", "", "NoSchedule"};

// ------------------------------------------------------------------ matching rules

TEST(Tolerations, EqualNeedsTheSameKeyValueAndEffect) {
  EXPECT_TRUE(tolerates({"nvidia.com/gpu", "Equal", "present", "NoSchedule"}, kGpuPresent));
  EXPECT_FALSE(tolerates({"nvidia.com/gpu", "Equal", "absent", "NoSchedule"}, kGpuPresent));
  EXPECT_FALSE(tolerates({"nvidia.com/gpu", "Equal", "", "NoSchedule"}, kGpuPresent))
      << "Equal with no value matches only a taint without one";
  EXPECT_TRUE(tolerates({"dedicated", "Equal", "", "NoSchedule"}, {"dedicated", "", "NoSchedule"}));
  EXPECT_FALSE(tolerates({"other", "Equal", "present", "NoSchedule"}, kGpuPresent));
}

TEST(Tolerations, AnEmptyOperatorIsEqual) {
  EXPECT_TRUE(tolerates({"nvidia.com/gpu", "", "present", "NoSchedule"}, kGpuPresent));
  EXPECT_FALSE(tolerates({"nvidia.com/gpu", "", "absent", "NoSchedule"}, kGpuPresent));
}

TEST(Tolerations, ExistsMatchesAnyValueOfItsKey) {
  EXPECT_TRUE(tolerates(kToleratesGpu, kGpuPresent));
  EXPECT_TRUE(tolerates(kToleratesGpu, {"nvidia.com/gpu", "", "NoSchedule"}));
  EXPECT_FALSE(tolerates(kToleratesGpu, {"dedicated", "present", "NoSchedule"}));
}

TEST(Tolerations, AnEmptyKeyWithExistsToleratesEveryTaint) {
  const Toleration everything{"", "Exists", "", ""};
  EXPECT_TRUE(tolerates(everything, kGpuPresent));
  EXPECT_TRUE(tolerates(everything, {"dedicated", "ml", "NoExecute"}));
  const Toleration every_no_schedule{"", "Exists", "", "NoSchedule"};
  EXPECT_TRUE(tolerates(every_no_schedule, {"dedicated", "ml", "NoSchedule"}));
  EXPECT_FALSE(tolerates(every_no_schedule, {"dedicated", "ml", "NoExecute"}));
}

TEST(Tolerations, AnEmptyEffectToleratesEveryEffectElseItMustBeEqual) {
  const Toleration any_effect{"nvidia.com/gpu", "Exists", "", ""};
  for (const char* effect : {"NoSchedule", "PreferNoSchedule", "NoExecute"})
    EXPECT_TRUE(tolerates(any_effect, {"nvidia.com/gpu", "present", effect})) << effect;
  EXPECT_FALSE(tolerates(kToleratesGpu, {"nvidia.com/gpu", "present", "NoExecute"}));
  EXPECT_TRUE(tolerates({"nvidia.com/gpu", "Exists", "", "NoExecute"},
                        {"nvidia.com/gpu", "present", "NoExecute"}));
}

TEST(Tolerations, AnUnknownOperatorToleratesNothing) {
  EXPECT_FALSE(tolerates({"nvidia.com/gpu", "Gt", "present", ""}, kGpuPresent));
}

TEST(Tolerations, OnlyNoScheduleAndNoExecuteTaintsKeepAPodOff) {
  const std::vector<Taint> taints{
      {"soft", "", "PreferNoSchedule"}, kGpuPresent, {"maintenance", "true", "NoExecute"}};
  EXPECT_EQ(first_untolerated({}, {}), nullptr) << "an untainted node takes every pod";
  EXPECT_EQ(first_untolerated(std::vector<Taint>{taints[0]}, {}), nullptr)
      << "PreferNoSchedule is a preference only";
  EXPECT_EQ(first_untolerated(taints, {}), &taints[1]);
  EXPECT_EQ(first_untolerated(taints, std::vector<Toleration>{kToleratesGpu}), &taints[2]);
  const std::vector<Toleration> both{kToleratesGpu, {"maintenance", "Equal", "true", ""}};
  EXPECT_EQ(first_untolerated(taints, both), nullptr);
}

TEST(Tolerations, TaintsAreShownAsKubectlShowsThem) {
  EXPECT_EQ(taint_text(kGpuPresent), "nvidia.com/gpu=present:NoSchedule");
  EXPECT_EQ(taint_text({"dedicated", "", "NoExecute"}), "dedicated:NoExecute");
}

// ------------------------------------------------------------------ node choice

ClusterState ready_cluster(const std::vector<NodeSpec>& specs) {
  ClusterState cluster("c");
  cluster.set_nodes(specs);
  cluster.set_ready(true);
  return cluster;
}

// Two 8-GPU nodes: node 0 tainted nvidia.com/gpu=present:NoSchedule, node 1 not.
std::vector<NodeSpec> one_tainted_node() {
  std::vector<NodeSpec> specs = nodes(2, 8, 64, "n");
  specs[0].taints = {kGpuPresent};
  return specs;
}

TaskShape worker(std::int64_t gpu_count, std::vector<Toleration> tolerations = {}) {
  TaskShape task;
  task.name = "worker";
  task.per_replica = gpus(gpu_count, 1);
  task.tolerations = std::move(tolerations);
  return task;
}

TEST(TaintedNodes, ATaskRunsOnATaintedNodeOnlyIfItToleratesTheTaint) {
  const ClusterState cluster = ready_cluster(one_tainted_node());
  EXPECT_FALSE(PlacementPolicy::may_run_on(cluster.node(0), worker(1)));
  EXPECT_TRUE(PlacementPolicy::may_run_on(cluster.node(1), worker(1)));
  EXPECT_TRUE(PlacementPolicy::may_run_on(cluster.node(0), worker(1, {kToleratesGpu})));
  EXPECT_TRUE(cluster.has_tainted_nodes());
  EXPECT_FALSE(ready_cluster(nodes(2, 8)).has_tainted_nodes());
}

TEST(TaintedNodes, NodeChoiceAndHoldsSkipNodesWhoseTaintsTheTaskDoesNotTolerate) {
  ClusterState cluster = ready_cluster(one_tainted_node());
  cluster.take(1, gpus(4));  // best fit for 4 GPUs would be node 1; for 8, only node 0 has room
  const PlacementPolicy policy;
  EXPECT_FALSE(policy.choose_node(cluster, worker(8), kNoOwner).has_value());
  EXPECT_EQ(policy.choose_node(cluster, worker(8, {kToleratesGpu}), kNoOwner), 0u);
  EXPECT_EQ(policy.choose_node(cluster, worker(2), kNoOwner), 1u);
  std::vector<ResourceVector> promised(cluster.node_count());
  EXPECT_EQ(policy.choose_hold_node(cluster, worker(4), promised, 5), 1u)
      << "node 0 has more room left but the task may not run there";
  EXPECT_EQ(policy.choose_hold_node(cluster, worker(4, {kToleratesGpu}), promised, 5), 0u);
}

TEST(TaintedNodes, UntoleratedTaintsNameTheTaintsOfNodesWithRoom) {
  std::vector<NodeSpec> specs = nodes(3, 8, 64, "n");
  specs[0].taints = {kGpuPresent};
  specs[1].taints = {{"soft", "", "PreferNoSchedule"}, {"dedicated", "ml", "NoExecute"}};
  ClusterState cluster = ready_cluster(specs);
  EXPECT_EQ(untolerated_taints(cluster, worker(8), NodeRoom::kFree),
            "nvidia.com/gpu=present:NoSchedule, dedicated=ml:NoExecute");
  EXPECT_EQ(untolerated_taints(cluster, worker(8, {kToleratesGpu}), NodeRoom::kFree),
            "dedicated=ml:NoExecute");
  cluster.take(1, gpus(4));
  EXPECT_EQ(untolerated_taints(cluster, worker(8, {kToleratesGpu}), NodeRoom::kFree), "")
      << "node 1 has no room for 8 GPUs now";
  EXPECT_EQ(untolerated_taints(cluster, worker(8, {kToleratesGpu}), NodeRoom::kAllocatable),
            "dedicated=ml:NoExecute");
  EXPECT_EQ(untolerated_taints(ready_cluster(nodes(2, 8)), worker(1), NodeRoom::kAny), "");
}

// ------------------------------------------------------------------ the scheduling core

class TaintsCoreTest : public testing::CoreHarness {
 protected:
  JobRequest job_tolerating(std::string name, std::int64_t gpu_count,
                            std::vector<Toleration> tolerations) {
    JobRequest request = testing::gpu_job(std::move(name), gpu_count);
    for (TaskShape& task : request.gang.tasks) task.tolerations = tolerations;
    return request;
  }
};

TEST_F(TaintsCoreTest, AJobWithoutTheTolerationWaitsAndSaysWhyOneWithItRuns) {
  std::vector<NodeSpec> specs = nodes(1, 8, 64, "gpu");
  specs[0].taints = {kGpuPresent};
  add_cluster("c", specs);
  submit(testing::gpu_job("plain", 8));
  EXPECT_TRUE(pass().dispatched.empty());
  const std::string reason = core.reason_text(job("plain"));
  EXPECT_NE(reason.find("gang does not fit on nodes"), std::string::npos) << reason;
  EXPECT_NE(reason.find("nodes with room have untolerated taints "
                        "(nvidia.com/gpu=present:NoSchedule)"),
            std::string::npos)
      << reason;

  submit(job_tolerating("tolerating", 8, {kToleratesGpu}));
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"tolerating"})
      << "a job the failed one does not dominate is tried for real";
}

TEST_F(TaintsCoreTest, AJobWithoutTheTolerationTakesTheUntaintedNodesOnly) {
  std::vector<NodeSpec> specs = nodes(3, 8, 64, "gpu");
  specs[0].taints = {kGpuPresent};
  specs[1].taints = {kGpuPresent};
  add_cluster("c", specs);
  submit(testing::gpu_job("two-nodes", 16));  // two 8-GPU replicas: one untainted node
  submit(testing::gpu_job("one-node", 8));
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"one-node"});
  const Job& placed = job("one-node");
  const Dispatch* dispatch = core.find_dispatch(placed.dispatch);
  ASSERT_NE(dispatch, nullptr);
  EXPECT_EQ(dispatch->parts.at(0).assignment.at(0).node, 2u);
  EXPECT_NE(core.reason_text(job("two-nodes")).find("best cluster c fits 1"), std::string::npos)
      << core.reason_text(job("two-nodes"));
}

TEST_F(TaintsCoreTest, ReasonsStayAsTheyWereWhereNoNodeIsTainted) {
  add_cluster("c", 2, 4);
  submit(testing::gpu_job("big", 16));
  pass();
  EXPECT_EQ(core.reason_text(job("big")).find("taints"), std::string::npos);
}

TEST(TaintsJobRequest, ATasksTolerationsReachItsShape) {
  auto spec = std::make_shared<protocol::JobSpec>();
  spec->name = "train";
  protocol::TaskSpec task;
  task.name = "worker";
  task.tolerations = {kToleratesGpu};
  task.containers.push_back(protocol::ContainerSpec{"c", "", {}, {}, {}, {{"cpu", 1000}}, {}});
  spec->tasks.push_back(task);
  const JobRequest request = make_job_request(spec);
  ASSERT_EQ(request.gang.tasks.size(), 1u);
  EXPECT_EQ(request.gang.tasks[0].tolerations, std::vector<Toleration>{kToleratesGpu});
}

class TaintsReconcilerTest : public testing::ReconcilerHarness {};

TEST_F(TaintsReconcilerTest, AUsageReportsTaintsReachTheHubsNodes) {
  Outbox out;
  reconciler.on_hello(protocol::Hello{"west", {}, "test", {}, {}}, now, out);
  protocol::UsageReport report{"west", {}, {}, {}};
  report.nodes.push_back(protocol::NodeUsage{"west-0", {}, {{"nvidia.com/gpu", 8000}}, {}, "", {}});
  report.nodes[0].taints = {kGpuPresent};
  reconciler.on_usage(report, now, out);
  const ClusterState& west = core.cluster(*core.find_cluster("west"));
  ASSERT_EQ(west.node_count(), 1u);
  EXPECT_EQ(west.node(0).taints, std::vector<Taint>{kGpuPresent});
}

}  // namespace
}  // namespace gantry::hub
