// The agent admits a part as the gang the hub placed, sent in Prepare::gang
// (hub/gang_wire.hpp): not its own reading of the spec, which could disagree.
#include "agents/dispatch_gang.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

#include "agent_test_support.hpp"
#include "hub/field_error.hpp"
#include "hub/job_request.hpp"

namespace gantry::agents {
namespace {

using testing::make_prepare;
using testing::with_hub_gang;

// Four workers in partitions of two, at least one whole partition: without
// minAvailable the gang starts with two replicas.
protocol::Prepare partitioned_prepare() {
  protocol::Prepare prepare = make_prepare(7, "ring", {{"worker", 4, 1}});
  prepare.parts = 1;
  protocol::PartitionPolicy& policy = prepare.job.tasks[0].partition_policy;
  policy.total_partitions = 2;
  policy.partition_size = 2;
  policy.min_partitions = 1;
  return with_hub_gang(prepare);
}

TEST(DispatchGangTest, AWholeGangNeedsWhatTheHubResolvedFromItsPartitions) {
  const protocol::Prepare prepare = partitioned_prepare();
  const hub::GangShape hub_gang = hub::resolve_gang(prepare.job);
  const DispatchGang gang = gang_for_part(prepare);
  EXPECT_EQ(hub_gang.min_available, 2) << "one whole partition";
  EXPECT_EQ(gang.shape.min_available, hub_gang.min_available);
  ASSERT_EQ(gang.shape.tasks.size(), 1u);
  EXPECT_EQ(gang.shape.tasks[0].replicas, 4);
  EXPECT_EQ(gang.shape.tasks[0].per_replica, hub_gang.tasks[0].per_replica);
  EXPECT_EQ(gang.shape.tasks[0].partition_size, 0)
      << "sent without the hub's topology tiers: the part is fitted by whole replicas";
  EXPECT_FALSE(gang.tiers);
}

// A whole gang the hub sends with its tier labels keeps the job's network
// topology and partitions: the agent's own fit stays within one domain.
TEST(DispatchGangTest, AWholeGangSentWithTierLabelsKeepsItsTopologyAndPartitions) {
  protocol::Prepare prepare = partitioned_prepare();
  prepare.job.network_topology = {"hard", 2};
  prepare = with_hub_gang(prepare);
  prepare.topology_tier_labels = {"rack", "zone"};
  const DispatchGang gang = gang_for_part(prepare);
  ASSERT_TRUE(gang.tiers);
  EXPECT_EQ(gang.tiers->label(1), "rack");
  EXPECT_EQ(gang.tiers->label(2), "zone");
  EXPECT_TRUE(gang.shape.topology.hard());
  EXPECT_EQ(gang.shape.topology.highest_tier, 2);
  EXPECT_EQ(gang.shape.tasks[0].partition_size, 2);
  EXPECT_EQ(gang.shape.tasks[0].min_partitions, 1);
  EXPECT_TRUE(hub::same_topology(gang.shape, hub::resolve_gang(prepare.job)))
      << "the agent fits the topology the hub placed by";
}

TEST(DispatchGangTest, APartOfASplitIsFittedByWholeReplicasEvenWithTierLabels) {
  protocol::Prepare prepare = partitioned_prepare();
  prepare.parts = 2;
  prepare.task_replicas["worker"] = 2;
  prepare.topology_tier_labels = {"rack"};
  const DispatchGang gang = gang_for_part(prepare);
  EXPECT_FALSE(gang.tiers);
  EXPECT_EQ(gang.shape.tasks[0].partition_size, 0);
}

TEST(DispatchGangTest, TierLabelsThatCannotNameTiersAreRefusedNamingTheField) {
  protocol::Prepare prepare = partitioned_prepare();
  prepare.topology_tier_labels.assign(hub::kMaxTopologyTiers + 1, "rack");
  try {
    gang_for_part(prepare);
    ADD_FAILURE() << "nine tiers were taken";
  } catch (const hub::FieldError& error) {
    EXPECT_EQ(error.field(), "topology_tier_labels");
  }
  prepare.topology_tier_labels = {"rack", ""};
  try {
    gang_for_part(prepare);
    ADD_FAILURE() << "an empty label was taken";
  } catch (const hub::FieldError& error) {
    EXPECT_EQ(error.field(), "topology_tier_labels[1]");
  }
}

TEST(DispatchGangTest, APartOfASplitStartsEveryReplicaItWasGiven) {
  protocol::Prepare prepare = partitioned_prepare();
  prepare.parts = 2;
  prepare.task_replicas["worker"] = 2;
  EXPECT_EQ(gang_for_part(prepare).shape.min_available, 2);
  prepare.job.min_available = 1;
  prepare = with_hub_gang(prepare);
  EXPECT_EQ(gang_for_part(prepare).shape.min_available, 2) << "the other part counts on them";
}

TEST(DispatchGangTest, AWholeGangNeedsTheMinAvailableTheHubSentAndABadOneIsRefused) {
  protocol::Prepare prepare = make_prepare(8, "pair", {{"worker", 3, 1}}, 2);
  prepare.parts = 1;
  EXPECT_EQ(gang_for_part(prepare).shape.min_available, 2);
  for (const std::int32_t bad : {0, 4}) {
    prepare.gang.min_available = bad;
    try {
      gang_for_part(prepare);
      ADD_FAILURE() << "minAvailable " << bad << " of 3 replicas was admitted";
    } catch (const hub::FieldError& error) {
      EXPECT_EQ(error.field(), "gang.min_available");
    }
  }
}

// What the agent admits is the hub's resolution, field by field, even where
// its own reading of the spec would differ (an agent of another build).
TEST(DispatchGangTest, TheAgentAdmitsTheGangTheHubSentNotItsOwnReadingOfTheSpec) {
  protocol::Prepare prepare = make_prepare(9, "sent", {{"worker", 3, 2}});
  prepare.gang.tasks[0].per_replica = {{"cpu", 5000}};
  prepare.gang.tasks[0].node_selector = {{"pool", "a"}};
  prepare.gang.min_available = 1;
  const DispatchGang gang = gang_for_part(prepare);
  ASSERT_EQ(gang.shape.tasks.size(), 1u);
  EXPECT_EQ(gang.shape.tasks[0].per_replica.to_list(), (protocol::ResourceList{{"cpu", 5000}}));
  EXPECT_EQ(gang.shape.tasks[0].node_selector, (protocol::Labels{{"pool", "a"}}));
  EXPECT_EQ(gang.shape.min_available, 1);
}

TEST(DispatchGangTest, AGangThatDoesNotListTheJobsTasksInOrderIsRefused) {
  protocol::Prepare prepare = make_prepare(10, "two", {{"master", 1, 1}, {"worker", 2, 1}});
  std::swap(prepare.gang.tasks[0], prepare.gang.tasks[1]);
  try {
    gang_for_part(prepare);
    ADD_FAILURE() << "tasks out of order were admitted";
  } catch (const hub::FieldError& error) {
    EXPECT_EQ(error.field(), "gang.tasks[0].name");
  }
  prepare.gang.tasks.pop_back();
  try {
    gang_for_part(prepare);
    ADD_FAILURE() << "a gang missing a task was admitted";
  } catch (const hub::FieldError& error) {
    EXPECT_EQ(error.field(), "gang.tasks");
  }
  prepare.gang = {};
  try {
    gang_for_part(prepare);
    ADD_FAILURE() << "a Prepare without a gang was admitted";
  } catch (const hub::FieldError& error) {
    EXPECT_EQ(error.field(), "gang.tasks");
  }
}

}  // namespace
}  // namespace gantry::agents
