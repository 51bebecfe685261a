// Local gang admission: the hub's placer over the agent's own nodes, and the
// reasons a refused gang gets.
#include <gtest/gtest.h>

#include <optional>
#include <set>

#include "agent_test_support.hpp"
#include "agents/dispatch_gang.hpp"
#include "agents/node_pool.hpp"
#include "hub/field_error.hpp"
#include "hub/placement_policy.hpp"

namespace gantry::agents {
namespace {

using testing::make_prepare;
using testing::small_inventory;

struct AdmissionTest : ::testing::Test {
  NodePool pool{"test", small_inventory()};
  std::vector<hub::NodeAssignment> assignment;

  Admission admit(const protocol::Prepare& prepare) {
    return pool.admit(gang_for_part(prepare).shape, assignment, prepare.nodes);
  }
  std::vector<std::string> nodes_taken() const {
    std::vector<std::string> names;
    for (const auto& placed : assignment) names.push_back(pool.node_name(placed.node));
    return names;
  }
  std::int64_t allocated_gpus() const {
    protocol::UsageReport report;
    pool.fill_usage(report);
    return testing::allocated_gpus(report);
  }
};

TEST_F(AdmissionTest, GangThatFitsTakesOneNodePerLargeReplica) {
  const Admission admission = admit(make_prepare(1, "ddp", {{"worker", 2, 4}}));
  ASSERT_TRUE(admission.admitted) << admission.reason;
  ASSERT_EQ(assignment.size(), 2u);
  std::set<std::string> nodes;
  for (const auto& placed : assignment) nodes.insert(pool.node_name(placed.node));
  EXPECT_EQ(nodes, (std::set<std::string>{"a100-0", "a100-1"}));
  EXPECT_EQ(allocated_gpus(), 8);

  pool.release(assignment);
  EXPECT_EQ(allocated_gpus(), 0);
}

TEST_F(AdmissionTest, RejectNamesTheResourceThatIsShortAndTakesNothing) {
  const Admission admission = admit(make_prepare(1, "big", {{"worker", 3, 4}}));
  EXPECT_FALSE(admission.admitted);
  EXPECT_NE(admission.reason.find("insufficient nvidia.com/gpu"), std::string::npos)
      << admission.reason;
  EXPECT_NE(admission.reason.find("nvidia.com/gpu=12"), std::string::npos) << admission.reason;
  EXPECT_NE(admission.reason.find("nvidia.com/gpu=10 free"), std::string::npos) << admission.reason;
  EXPECT_EQ(allocated_gpus(), 0);
}

TEST_F(AdmissionTest, ReplicaLargerThanAnyNodeIsNamed) {
  const Admission admission = admit(make_prepare(1, "wide", {{"worker", 1, 8}}));
  EXPECT_FALSE(admission.admitted);
  EXPECT_NE(admission.reason.find("task worker: one replica needs nvidia.com/gpu=8 but the "
                                  "largest node has nvidia.com/gpu=4"),
            std::string::npos)
      << admission.reason;
}

TEST_F(AdmissionTest, EnoughInTotalButFragmentedAcrossNodesIsRejected) {
  ASSERT_TRUE(admit(make_prepare(1, "three-each", {{"worker", 2, 3}})).admitted);
  // 1 + 1 + 2 GPUs free: four in total, but no node has four.
  const Admission admission = admit(make_prepare(2, "four", {{"worker", 1, 4}}));
  EXPECT_FALSE(admission.admitted);
  EXPECT_NE(admission.reason.find("does not fit on nodes"), std::string::npos) << admission.reason;
  EXPECT_NE(admission.reason.find("only 0 fit"), std::string::npos) << admission.reason;
  EXPECT_EQ(allocated_gpus(), 6);
}

TEST_F(AdmissionTest, NodeSelectorSteersPlacementAndAnUnmatchedOneIsNamed) {
  const Admission t4 =
      admit(make_prepare(1, "infer", {{"infer", 1, 2, 1, {{"nvidia.com/gpu.product", "T4"}}}}));
  ASSERT_TRUE(t4.admitted) << t4.reason;
  ASSERT_EQ(assignment.size(), 1u);
  EXPECT_EQ(pool.node_name(assignment[0].node), "t4-0");

  const Admission h100 =
      admit(make_prepare(2, "h100", {{"train", 1, 1, 1, {{"nvidia.com/gpu.product", "H100"}}}}));
  EXPECT_FALSE(h100.admitted);
  EXPECT_NE(h100.reason.find("task train: no node matches nodeSelector "
                             "nvidia.com/gpu.product=H100"),
            std::string::npos)
      << h100.reason;
}

// The agent admits with the hub's placement policy: the node it takes for a
// replica is the one the hub's policy chooses on the same state.
TEST_F(AdmissionTest, TakesTheNodeTheHubPolicyChooses) {
  const protocol::Prepare dispatch =
      make_prepare(1, "one", {{"worker", 1, 1, 1, {{"nvidia.com/gpu.product", "A100"}}}});
  const hub::GangShape gang = gang_for_part(dispatch).shape;
  const std::optional<hub::NodeIndex> expected =
      hub::PlacementPolicy::standard().choose_node(pool.state(), gang.tasks[0], hub::kNoOwner);
  ASSERT_TRUE(expected.has_value());
  ASSERT_TRUE(pool.admit(gang, assignment).admitted);
  ASSERT_EQ(assignment.size(), 1u);
  EXPECT_EQ(assignment[0].node, *expected);
  EXPECT_TRUE(hub::PlacementPolicy::matches_selector(pool.state().node(*expected).labels,
                                                     gang.tasks[0].node_selector));
}

// The hub's hints are taken as they are when every hinted replica fits its
// node now, even where the agent's own policy (best fit: the T4 node for a
// one-GPU replica) would choose another.
TEST_F(AdmissionTest, HintedNodesAreTakenWhenEveryReplicaFitsThere) {
  protocol::Prepare prepare = make_prepare(1, "hinted", {{"worker", 2, 1}});
  prepare.nodes = {{"worker", "a100-1"}, {"worker", "a100-1"}};
  const Admission admission = admit(prepare);
  ASSERT_TRUE(admission.admitted) << admission.reason;
  EXPECT_TRUE(admission.hinted);
  EXPECT_EQ(nodes_taken(), (std::vector<std::string>{"a100-1", "a100-1"}));
  EXPECT_EQ(allocated_gpus(), 2);
}

TEST_F(AdmissionTest, AFullHintedNodeLeavesTheChoiceToTheAgentsPolicy) {
  protocol::Prepare fill = make_prepare(1, "fill", {{"worker", 1, 4}});
  fill.nodes = {{"worker", "a100-0"}};
  ASSERT_TRUE(admit(fill).hinted);

  // The hub's view is stale: it still sees a100-0 free.
  protocol::Prepare stale = make_prepare(2, "stale", {{"worker", 2, 2}});
  stale.nodes = {{"worker", "a100-1"}, {"worker", "a100-0"}};
  const Admission admission = admit(stale);
  ASSERT_TRUE(admission.admitted) << admission.reason;
  EXPECT_FALSE(admission.hinted);
  for (const std::string& node : nodes_taken()) EXPECT_NE(node, "a100-0");
  EXPECT_EQ(allocated_gpus(), 8);
}

TEST_F(AdmissionTest, HintsThatDoNotDescribeTheGangAreNotTaken) {
  const auto hinted = [&](std::vector<protocol::PlacedReplica> nodes) {
    protocol::Prepare prepare =
        make_prepare(1, "a100", {{"worker", 2, 1, 1, {{"nvidia.com/gpu.product", "A100"}}}});
    prepare.nodes = std::move(nodes);
    const Admission admission = admit(prepare);
    EXPECT_TRUE(admission.admitted) << admission.reason;
    pool.release(assignment);
    return admission.hinted;
  };
  EXPECT_FALSE(hinted({{"worker", "t4-0"}, {"worker", "t4-0"}}));      // selector: A100 only
  EXPECT_FALSE(hinted({{"worker", "a100-0"}}));                        // one replica short
  EXPECT_FALSE(hinted({{"worker", "a100-0"}, {"worker", "gone-7"}}));  // no such node
  EXPECT_FALSE(hinted({{"worker", "a100-0"}, {"other", "a100-0"}}));   // no such task
  EXPECT_TRUE(hinted({{"worker", "a100-0"}, {"worker", "a100-1"}}));
  EXPECT_EQ(allocated_gpus(), 0);  // a refused hint takes nothing
}

TEST(DispatchGang, UsesTheReplicasHereAndCapsMinAvailable) {
  protocol::Prepare dispatch =
      make_prepare(1, "split", {{"master", 1, 1}, {"worker", 4, 2}, {"idle", 2}}, 4);
  dispatch.task_replicas["worker"] = 2;  // the other two run on another cluster
  dispatch.task_replicas.erase("idle");
  const DispatchGang gang = gang_for_part(dispatch);
  ASSERT_EQ(gang.shape.tasks.size(), 2u);
  EXPECT_EQ(gang.shape.tasks[0].name, "master");
  EXPECT_EQ(gang.shape.tasks[1].replicas, 2);
  EXPECT_EQ(gang.shape.tasks[1].per_replica.get(hub::kGpu), 2000);
  EXPECT_EQ(gang.job_task, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(gang.shape.min_available, 3);  // 4 capped to the 3 replicas here

  dispatch.job.min_available = 0;
  dispatch = testing::with_hub_gang(dispatch);
  EXPECT_EQ(gang_for_part(dispatch).shape.min_available, 3);  // 0 = all of them
}

// The other parts count on this part's ranks: a split part starts all of its
// replicas or none, whatever the job's minAvailable.
TEST(DispatchGang, APartOfASplitGangNeedsEveryReplicaItWasGiven) {
  protocol::Prepare part = make_prepare(1, "split", {{"worker", 8, 1}}, 2);
  part.task_replicas["worker"] = 3;
  part.part = 1;
  part.parts = 2;
  EXPECT_EQ(gang_for_part(part).shape.min_available, 3);
  part.parts = 1;
  EXPECT_EQ(gang_for_part(part).shape.min_available, 2);
}

TEST(DispatchGang, MalformedDispatchNamesTheField) {
  protocol::Prepare unknown = make_prepare(1, "j", {{"worker", 2}});
  unknown.task_replicas["bogus"] = 1;
  try {
    gang_for_part(unknown);
    FAIL() << "accepted an unknown task";
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), "task_replicas[bogus]");
  }

  protocol::Prepare too_many = make_prepare(1, "j", {{"worker", 2}});
  too_many.task_replicas["worker"] = 5;
  try {
    gang_for_part(too_many);
    FAIL() << "accepted more replicas than the task has";
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), "task_replicas[worker]");
    EXPECT_EQ(e.value(), "5");
  }

  protocol::Prepare none = make_prepare(1, "j", {{"worker", 2}});
  none.task_replicas.clear();
  EXPECT_THROW(gang_for_part(none), hub::FieldError);
}

// ---- network topology: the agent's own fit, when the hub's chosen nodes no
// longer fit, keeps a hard-topology gang within one domain of the hub's tiers.

// Four 4-GPU nodes: two on rack r1, one on r2, one on r3 (label "rack").
struct TopologyAdmissionTest : ::testing::Test {
  static config::Inventory racks() {
    config::Inventory inventory = small_inventory();
    inventory.nodes.clear();
    for (const auto& [name, rack] : std::vector<std::pair<std::string, std::string>>{
             {"n0", "r2"}, {"n1", "r1"}, {"n2", "r3"}, {"n3", "r1"}}) {
      inventory.nodes.push_back(testing::make_node(name, 32, 4, "A100"));
      inventory.nodes.back().labels["rack"] = rack;
    }
    return inventory;
  }
  // Two 4-GPU replicas that must share one rack (tier 1 on label "rack").
  static protocol::Prepare pair_on_one_rack() {
    protocol::Prepare prepare = make_prepare(1, "pair", {{"worker", 2, 4}});
    prepare.parts = 1;
    prepare.job.network_topology = {"hard", 1};
    prepare.topology_tier_labels = {"rack"};
    return testing::with_hub_gang(std::move(prepare));
  }
  Admission admit(const protocol::Prepare& prepare) {
    const DispatchGang gang = gang_for_part(prepare);
    return pool.admit(gang.shape, assignment, prepare.nodes,
                      gang.tiers.value_or(hub::TopologyTiers{}));
  }
  std::set<std::string> nodes_taken() const {
    std::set<std::string> names;
    for (const auto& placed : assignment) names.insert(pool.node_name(placed.node));
    return names;
  }

  NodePool pool{"test", racks()};
  std::vector<hub::NodeAssignment> assignment;
};

TEST_F(TopologyAdmissionTest, WithoutHintsTheGangTakesTheOneRackThatHoldsIt) {
  const Admission admission = admit(pair_on_one_rack());
  ASSERT_TRUE(admission.admitted) << admission.reason;
  EXPECT_EQ(nodes_taken(), (std::set<std::string>{"n1", "n3"}));
}

TEST_F(TopologyAdmissionTest, HintsThatNoLongerFitFallBackWithinOneRack) {
  std::vector<hub::NodeAssignment> other;
  ASSERT_TRUE(pool.admit(gang_for_part(make_prepare(2, "other", {{"w", 1, 4}})).shape, other,
                         std::vector<protocol::PlacedReplica>{{"w", "n0"}})
                  .admitted);
  protocol::Prepare prepare = pair_on_one_rack();
  prepare.nodes = {{"worker", "n0"}, {"worker", "n2"}};  // n0 is taken meanwhile
  const Admission admission = admit(prepare);
  ASSERT_TRUE(admission.admitted) << admission.reason;
  EXPECT_FALSE(admission.hinted);
  EXPECT_EQ(nodes_taken(), (std::set<std::string>{"n1", "n3"}))
      << "not n2 and n3 across racks, which fit the GPUs as well";
}

TEST_F(TopologyAdmissionTest, NoRackHoldsTheGangRefusedSayingSoAndNothingTaken) {
  std::vector<hub::NodeAssignment> other;
  ASSERT_TRUE(pool.admit(gang_for_part(make_prepare(2, "other", {{"w", 1, 4}})).shape, other,
                         std::vector<protocol::PlacedReplica>{{"w", "n1"}})
                  .admitted);
  const Admission admission = admit(pair_on_one_rack());
  EXPECT_FALSE(admission.admitted) << "n0, n2 and n3 have the GPUs, but on three racks";
  EXPECT_NE(admission.reason.find("one value of rack (tier 1)"), std::string::npos)
      << admission.reason;
  EXPECT_TRUE(assignment.empty());
}

TEST_F(TopologyAdmissionTest, APrepareWithoutTierLabelsIsFittedByWholeReplicasAnywhere) {
  protocol::Prepare prepare = pair_on_one_rack();
  prepare.topology_tier_labels.clear();
  std::vector<hub::NodeAssignment> other;
  ASSERT_TRUE(pool.admit(gang_for_part(make_prepare(2, "other", {{"w", 1, 4}})).shape, other,
                         std::vector<protocol::PlacedReplica>{{"w", "n1"}})
                  .admitted);
  EXPECT_TRUE(admit(prepare).admitted) << "as before: whole replicas anywhere";
}

}  // namespace
}  // namespace gantry::agents
