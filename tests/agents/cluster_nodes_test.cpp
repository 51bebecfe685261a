// A cluster-role agent's nodes: node-role reports joined with the Kubernetes
// view, and the agent's node pool following them while it holds parts.
#include "agents/cluster_nodes.hpp"

#include <gtest/gtest.h>

#include "agent_test_support.hpp"
#include "agents/dispatch_gang.hpp"
#include "agents/node_pool.hpp"

namespace gantry::agents {
namespace {

using testing::make_node;
using testing::make_prepare;

protocol::GpuUsage gpu(std::int32_t index, std::int32_t utilization, std::int32_t processes = 0) {
  return protocol::GpuUsage{index, "NVIDIA A100-SXM4-80GB", 85'899'345'920, 1'073'741'824,
                            utilization, processes};
}

protocol::NodeReport report(const std::string& node, std::vector<protocol::GpuUsage> gpus) {
  protocol::NodeReport report;
  report.cluster = "lab";
  report.node = node;
  report.cpu_milli = 64'000;
  report.memory_bytes = 512LL << 30;
  report.gpus = std::move(gpus);
  return report;
}

TEST(ClusterNodesTest, WithoutKubernetesTheReportsAreTheNodes) {
  ClusterNodes nodes(15'000);
  EXPECT_TRUE(nodes.on_report(report("gpu-1", {gpu(0, 40), gpu(1, 0)}), 1'000));
  ASSERT_EQ(nodes.nodes().size(), 1u);
  const protocol::NodeUsage& node = nodes.nodes()[0];
  EXPECT_EQ(node.allocatable.at("cpu"), 64'000);
  EXPECT_EQ(node.allocatable.at("memory"), (512LL << 30) * 1000);
  EXPECT_EQ(node.allocatable.at("nvidia.com/gpu"), 2'000);
  EXPECT_EQ(node.labels.at("nvidia.com/gpu.product"), "NVIDIA-A100-SXM4-80GB");
  EXPECT_EQ(node.gpus.size(), 2u);
  // The same report again changes nothing; a changed utilisation does.
  EXPECT_FALSE(nodes.on_report(report("gpu-1", {gpu(0, 40), gpu(1, 0)}), 2'000));
  EXPECT_TRUE(nodes.on_report(report("gpu-1", {gpu(0, 90), gpu(1, 0)}), 3'000));
}

TEST(ClusterNodesTest, ANodeSilentPastTheLimitIsGone) {
  ClusterNodes nodes(15'000);
  nodes.on_report(report("gpu-1", {gpu(0, 40)}), 1'000);
  nodes.on_report(report("cpu-1", {}), 10'000);
  EXPECT_EQ(nodes.next_expiry(), 16'001);
  EXPECT_FALSE(nodes.expire(16'000));
  EXPECT_TRUE(nodes.expire(16'001));
  ASSERT_EQ(nodes.nodes().size(), 1u);
  EXPECT_EQ(nodes.nodes()[0].name, "cpu-1");
  EXPECT_EQ(nodes.nodes()[0].allocatable.count("nvidia.com/gpu"), 0u);
}

TEST(ClusterNodesTest, WithKubernetesReportsOnlyAddTheirGpusUse) {
  ClusterNodes nodes(15'000);
  nodes.on_report(report("gpu-1", {gpu(0, 40), gpu(1, 0)}), 1'000);
  nodes.on_report(report("not-in-kubernetes", {gpu(0, 10)}), 1'000);
  protocol::NodeUsage listed = make_node("gpu-1", 32, 2, "A100");
  listed.allocated = {{"nvidia.com/gpu", 1'000}};  // another scheduler's pod
  EXPECT_TRUE(nodes.on_kubernetes({listed, make_node("gpu-2", 32, 2, "A100")}));
  ASSERT_EQ(nodes.nodes().size(), 2u);
  EXPECT_EQ(nodes.nodes()[0].allocatable.at("cpu"), 32'000) << "Kubernetes' allocatable wins";
  EXPECT_EQ(nodes.nodes()[0].allocated.at("nvidia.com/gpu"), 1'000);
  EXPECT_EQ(nodes.nodes()[0].gpus.size(), 2u);
  EXPECT_TRUE(nodes.nodes()[1].gpus.empty()) << "gpu-2 has no node-role agent";
}

// The pool follows the nodes while parts hold resources: what the agent
// holds stays held, a node gone keeps its holds and takes nothing new.
TEST(NodePoolUpdateTest, HoldsOutliveNodeChanges) {
  NodePool pool("lab", protocol::Labels{});
  pool.update_nodes({make_node("a", 32, 4, "A100"), make_node("b", 32, 4, "A100")});
  std::vector<hub::NodeAssignment> held;
  const protocol::Prepare prepare = make_prepare(1, "ddp", {{"worker", 1, 4}});
  ASSERT_TRUE(pool.admit(gang_for_part(prepare).shape, held, prepare.nodes).admitted);
  const std::string node = pool.node_name(held[0].node);

  protocol::NodeUsage busy = make_node(node, 32, 4, "A100");
  busy.allocated = {{"cpu", 1'000}};  // a pod Gantry did not start
  pool.update_nodes({busy});          // the other node is gone
  protocol::UsageReport usage;
  pool.fill_usage(usage);
  ASSERT_EQ(usage.nodes.size(), 1u) << "the gone node holds nothing: not reported";
  EXPECT_EQ(usage.nodes[0].allocated.at("nvidia.com/gpu"), 4'000) << "the hold survived";
  EXPECT_EQ(usage.nodes[0].allocated.at("cpu"), 1'000 + prepare.job.tasks[0].containers[0].requests.at("cpu"));

  std::vector<hub::NodeAssignment> more;
  const protocol::Prepare second = make_prepare(2, "ddp2", {{"worker", 1, 4}});
  EXPECT_FALSE(pool.admit(gang_for_part(second).shape, more, second.nodes).admitted)
      << "the gone node takes nothing new";
  pool.release(held);
  pool.fill_usage(usage);
  EXPECT_EQ(usage.nodes[0].allocated.count("nvidia.com/gpu"), 0u);
}

}  // namespace
}  // namespace gantry::agents
