// The agent's own admission honours node taints as the hub's placement does
// (issue 25): a part whose tasks do not tolerate a node's NoSchedule /
// NoExecute taint is never held there, hinted or not, and the Reject says so.
#include <gtest/gtest.h>

#include "agent_test_support.hpp"
#include "agents/cluster_nodes.hpp"
#include "agents/dispatch_gang.hpp"
#include "agents/node_pool.hpp"

namespace gantry::agents {
namespace {

using testing::make_node;
using testing::make_prepare;

const protocol::Taint kGpuPresent{"nvidia.com/gpu", "present", "NoSchedule"};
const protocol::Toleration kToleratesGpu{"nvidia.com/gpu", "Exists", "", "NoSchedule"};

// The small inventory (two 4-GPU A100 nodes, one 2-GPU T4 node) with both
// A100 nodes tainted.
config::Inventory tainted_a100s() {
  config::Inventory inventory = testing::small_inventory();
  for (protocol::NodeUsage& node : inventory.nodes)
    if (node.gpu_model == "A100") node.taints = {kGpuPresent};
  return inventory;
}

protocol::Prepare tolerating(protocol::Prepare prepare) {
  for (protocol::TaskSpec& task : prepare.job.tasks) task.tolerations = {kToleratesGpu};
  return testing::with_hub_gang(std::move(prepare));
}

struct TaintsAdmissionTest : ::testing::Test {
  NodePool pool{"test", tainted_a100s()};
  std::vector<hub::NodeAssignment> assignment;

  Admission admit(const protocol::Prepare& prepare) {
    assignment.clear();
    return pool.admit(gang_for_part(prepare).shape, assignment, prepare.nodes);
  }
  std::vector<std::string> nodes_taken() const {
    std::vector<std::string> names;
    for (const auto& placed : assignment) names.push_back(pool.node_name(placed.node));
    return names;
  }
};

TEST_F(TaintsAdmissionTest, ATaskWithoutTheTolerationIsRefusedTheTaintedNodes) {
  const Admission admission = admit(make_prepare(1, "wide", {{"worker", 1, 4}}));
  EXPECT_FALSE(admission.admitted);
  EXPECT_NE(admission.reason.find("task worker: one replica needs nvidia.com/gpu=4 but the "
                                  "largest node has nvidia.com/gpu=2; nodes with room have "
                                  "untolerated taints (nvidia.com/gpu=present:NoSchedule)"),
            std::string::npos)
      << admission.reason;
  EXPECT_TRUE(assignment.empty());
}

TEST_F(TaintsAdmissionTest, ATaskWithTheTolerationIsAdmittedThere) {
  const Admission admission = admit(tolerating(make_prepare(1, "wide", {{"worker", 2, 4}})));
  ASSERT_TRUE(admission.admitted) << admission.reason;
  EXPECT_EQ(nodes_taken(), (std::vector<std::string>{"a100-0", "a100-1"}));
}

TEST_F(TaintsAdmissionTest, AHintOntoATaintedNodeIsNotTakenForATaskThatDoesNotTolerateIt) {
  protocol::Prepare prepare = make_prepare(1, "one", {{"worker", 1, 1}});
  prepare.nodes = {{"worker", "a100-0"}};
  const Admission plain = admit(prepare);
  ASSERT_TRUE(plain.admitted) << plain.reason;
  EXPECT_FALSE(plain.hinted);
  EXPECT_EQ(nodes_taken(), std::vector<std::string>{"t4-0"});
  pool.release(assignment);

  const Admission tolerated = admit(tolerating(prepare));
  ASSERT_TRUE(tolerated.admitted) << tolerated.reason;
  EXPECT_TRUE(tolerated.hinted);
  EXPECT_EQ(nodes_taken(), std::vector<std::string>{"a100-0"});
}

TEST_F(TaintsAdmissionTest, FragmentedRoomNamesTheTaintsOfNodesWithRoom) {
  ASSERT_TRUE(admit(make_prepare(1, "t4", {{"worker", 1, 1}})).admitted);
  // t4-0 has 1 GPU left; the A100 nodes have room but are tainted.
  const Admission admission = admit(make_prepare(2, "pair", {{"worker", 2, 1}}));
  EXPECT_FALSE(admission.admitted);
  EXPECT_NE(admission.reason.find("does not fit on nodes"), std::string::npos) << admission.reason;
  EXPECT_NE(admission.reason.find("nodes with room have untolerated taints"), std::string::npos)
      << admission.reason;
}

TEST(TaintsAdmission, EveryNodeTaintedIsNamed) {
  config::Inventory inventory = tainted_a100s();
  inventory.nodes.back().taints = {{"dedicated", "inference", "NoExecute"}};
  NodePool pool{"test", inventory};
  std::vector<hub::NodeAssignment> assignment;
  const protocol::Prepare prepare = make_prepare(1, "one", {{"worker", 1, 1}});
  const Admission admission = pool.admit(gang_for_part(prepare).shape, assignment);
  EXPECT_FALSE(admission.admitted);
  EXPECT_EQ(admission.reason,
            "task worker: every node has untolerated taints (nvidia.com/gpu=present:NoSchedule, "
            "dedicated=inference:NoExecute)");
}

TEST(TaintsAdmission, NodesLearnedFromKubernetesKeepTheirTaints) {
  NodePool pool{"test", protocol::Labels{}};
  protocol::NodeUsage gpu = make_node("gpu-0", 32, 8, "H100");
  gpu.taints = {kGpuPresent};
  pool.update_nodes({gpu});
  std::vector<hub::NodeAssignment> assignment;
  const protocol::Prepare prepare = make_prepare(1, "one", {{"worker", 1, 8}});
  EXPECT_FALSE(pool.admit(gang_for_part(prepare).shape, assignment).admitted);
  EXPECT_TRUE(pool.admit(gang_for_part(tolerating(prepare)).shape, assignment).admitted);

  gpu.taints.clear();  // the taint was removed from the Node
  pool.release(assignment);
  pool.update_nodes({gpu});
  EXPECT_TRUE(pool.admit(gang_for_part(prepare).shape, assignment).admitted);
}

TEST(TaintsAdmission, ATaintAddedToAKubernetesNodeIsANodeChange) {
  ClusterNodes nodes(15'000);
  protocol::NodeUsage gpu = make_node("gpu-0", 32, 8, "H100");
  EXPECT_TRUE(nodes.on_kubernetes({gpu}));
  gpu.taints = {kGpuPresent};
  EXPECT_TRUE(nodes.on_kubernetes({gpu})) << "the pool must hear of it";
  EXPECT_EQ(nodes.nodes().at(0).taints, std::vector<protocol::Taint>{kGpuPresent});
  EXPECT_FALSE(nodes.on_kubernetes({gpu}));
}

TEST(TaintsAdmission, APartsTasksCarryTheirTolerations) {
  const protocol::Prepare prepare = tolerating(make_prepare(1, "j", {{"worker", 2, 1}}));
  const DispatchGang gang = gang_for_part(prepare);
  ASSERT_EQ(gang.shape.tasks.size(), 1u);
  EXPECT_EQ(gang.shape.tasks[0].tolerations, std::vector<protocol::Toleration>{kToleratesGpu});
}

}  // namespace
}  // namespace gantry::agents
