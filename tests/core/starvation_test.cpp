// The starvation stage's parts (hub/starvation.hpp, hub/sla_watch.hpp) outside
// any SchedulerCore; the stage within a pass is tested in fair_share_test and
// backfill_test.
#include "hub/starvation.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "core_fixtures.hpp"
#include "hub/placement_policy.hpp"
#include "hub/sla_watch.hpp"

namespace gantry::hub {
namespace {

using testing::job_of;
using testing::nodes;
using testing::ready_cluster;

std::vector<NodeIndex> held_for(const ClusterState& cluster, JobId owner) {
  std::vector<NodeIndex> out;
  for (NodeIndex n = 0; n < cluster.node_count(); ++n)
    if (cluster.held_for(n) == owner) out.push_back(n);
  return out;
}

std::vector<ClusterState> small_and_big() {
  std::vector<ClusterState> clusters;
  clusters.push_back(ready_cluster("small", nodes(1, 8)));
  clusters.push_back(ready_cluster("big", nodes(3, 8)));
  return clusters;
}

TEST(StarvationHolds, HoldsAMinAvailableGangOnTheClusterWithTheMostFreeGpus) {
  std::vector<ClusterState> clusters = small_and_big();
  GangShape gang = make_gpu_gang(24, 8);  // 3 replicas of 8
  gang.min_available = 2;
  StarvationHolds holds;
  holds.hold_for(clusters, PlacementPolicy{}, job_of(gang), 7);
  EXPECT_EQ(held_for(clusters[1], 7).size(), 2u) << "min_available replicas, one node each";
  EXPECT_TRUE(held_for(clusters[0], 7).empty());
  EXPECT_FALSE(clusters[1].fully_held());
}

TEST(StarvationHolds, EachReplicaGoesWhereTheMostGpusAreLeftAfterEarlierPromises) {
  std::vector<ClusterState> clusters;
  clusters.push_back(ready_cluster("two", nodes(2, 8)));
  clusters.push_back(ready_cluster("one", nodes(1, 8)));
  clusters[1].set_cordoned(true);
  StarvationHolds holds;
  holds.hold_for(clusters, PlacementPolicy{}, job_of(make_gpu_gang(8, 4)), 3);  // 2 x 4 GPUs
  EXPECT_EQ(held_for(clusters[0], 3), (std::vector<NodeIndex>{0, 1}))
      << "after node 0 is promised 4 GPUs, node 1 has more left";
  clusters[0].clear_holds();
  clusters[0].set_cordoned(true);
  clusters[1].set_cordoned(false);
  holds.hold_for(clusters, PlacementPolicy{}, job_of(make_gpu_gang(8, 4)), 3);
  EXPECT_EQ(held_for(clusters[1], 3), std::vector<NodeIndex>{0})
      << "both replicas are promised node 0, which is held once";
  EXPECT_TRUE(clusters[1].fully_held());
}

TEST(StarvationHolds, ALaterJobHoldsOnlyWhatEarlierOnesLeft) {
  std::vector<ClusterState> clusters = small_and_big();
  StarvationHolds holds;
  holds.hold_for(clusters, PlacementPolicy{}, job_of(make_gpu_gang(16, 8)), 7);
  holds.hold_for(clusters, PlacementPolicy{}, job_of(make_gpu_gang(16, 8)), 8);
  EXPECT_EQ(held_for(clusters[1], 7).size(), 2u);
  EXPECT_EQ(held_for(clusters[1], 8).size(), 1u) << "job 7's nodes stay out of job 8's reach";
  EXPECT_TRUE(clusters[1].fully_held());
}

TEST(StarvationHolds, PromisesDoNotOutliveTheJobTheyWereMadeFor) {
  std::vector<ClusterState> clusters = small_and_big();
  StarvationHolds holds;
  holds.hold_for(clusters, PlacementPolicy{}, job_of(make_gpu_gang(16, 8)), 7);
  clusters[1].clear_holds();  // the next pass
  holds.hold_for(clusters, PlacementPolicy{}, job_of(make_gpu_gang(24, 8)), 7);
  EXPECT_EQ(held_for(clusters[1], 7).size(), 3u)
      << "the nodes promised to the first gang are free to promise again";
}

TEST(StarvationHolds, NoEligibleClusterHoldsNothing) {
  std::vector<ClusterState> clusters = small_and_big();
  clusters[1].set_cordoned(true);
  StarvationHolds holds;
  holds.hold_for(clusters, PlacementPolicy{}, job_of(make_gpu_gang(16, 8)), 7);
  EXPECT_FALSE(clusters[0].has_holds()) << "small could never hold 16 GPUs";
  EXPECT_FALSE(clusters[1].has_holds()) << "big is cordoned";
}

TEST(EveryAllowedNodeHeld, OnlyWhenEveryEligibleClusterIsFullyHeld) {
  std::vector<ClusterState> clusters = small_and_big();
  const Job anywhere = job_of(make_gpu_gang(8, 8));
  const Job big_only = job_of(make_gpu_gang(8, 8), {1});
  for (NodeIndex n = 0; n < 3; ++n) clusters[1].hold_node(n, 5);
  EXPECT_TRUE(every_allowed_node_held(clusters, big_only));
  EXPECT_FALSE(every_allowed_node_held(clusters, anywhere)) << "small's node is free";
  clusters[1].set_ready(false);
  EXPECT_FALSE(every_allowed_node_held(clusters, big_only))
      << "no ready cluster: the attempt must run to say why";
}

TEST(SlaWatch, EarliestDeadlineFirstThenSubmissionOrder) {
  std::vector<Job> jobs(4);
  const auto with_sla = [&](JobId id, TimeMs submitted, TimeMs sla, std::uint64_t sequence) {
    jobs[id].submitted_ms = submitted;
    jobs[id].sla_waiting_ms = sla;
    jobs[id].sequence = sequence;
  };
  with_sla(0, 0, 5'000, 1);
  with_sla(1, 1'000, 1'000, 2);  // due at 2'000
  with_sla(2, 0, 5'000, 3);      // due with job 0, submitted after it
  with_sla(3, 0, 0, 4);          // no SLA
  SlaWatch watch;
  for (JobId id = 0; id < jobs.size(); ++id) watch.add(jobs[id], id);
  std::vector<JobId> order;
  for (const SlaWatch::Entry& entry : watch) order.push_back(entry.job);
  EXPECT_EQ(order, (std::vector<JobId>{1, 0, 2}));
  watch.remove(jobs[0], 0);
  watch.remove(jobs[3], 3);
  order.clear();
  for (const SlaWatch::Entry& entry : watch) order.push_back(entry.job);
  EXPECT_EQ(order, (std::vector<JobId>{1, 2}));
}

}  // namespace
}  // namespace gantry::hub
