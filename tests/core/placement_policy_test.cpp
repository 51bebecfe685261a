// The placement-policy seam on its own: which clusters a job may use, in
// which order they are tried, and which node a replica (or a starvation hold)
// gets. The scheduling pass, eviction, reasons and the agent all ask it.
#include "hub/placement_policy.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hub/scheduler.hpp"
#include "tests/core/core_fixtures.hpp"

namespace gantry::hub {
namespace {

using testing::gpus;
using testing::job_of;
using testing::nodes;
using testing::ready_cluster;

const Labels kA100{{std::string(kGpuProductLabel), "A100"}};
const Labels kT4{{std::string(kGpuProductLabel), "T4"}};

TaskShape task_of(std::int64_t gpu_count, Labels selector = {}) {
  TaskShape task;
  task.name = "worker";
  task.per_replica = gpus(gpu_count, 1);
  task.node_selector = std::move(selector);
  return task;
}

std::vector<ClusterIndex> ranked(const PlacementPolicy& policy,
                                 const std::vector<ClusterState>& clusters, const Job& job) {
  std::vector<RankedCluster> out;
  policy.rank_clusters(clusters, job, TopologyTiers{}, 0, out);
  std::vector<ClusterIndex> order;
  for (const RankedCluster& each : out) order.push_back(each.cluster);
  return order;
}

// ------------------------------------------------------------------ eligibility

TEST(PlacementPolicyEligibility, ANotReadyClusterIsNotEligible) {
  ClusterState cluster = ready_cluster("c", nodes(1, 8));
  const Job job = job_of(make_gpu_gang(1, 8));
  EXPECT_TRUE(PlacementPolicy::eligible(cluster, 0, job));
  cluster.set_ready(false);
  EXPECT_FALSE(PlacementPolicy::eligible(cluster, 0, job));
  EXPECT_FALSE(PlacementPolicy::worth_trying(cluster, 0, job, 0));
}

TEST(PlacementPolicyEligibility, AJobPinnedElsewhereMayNotUseTheCluster) {
  const ClusterState cluster = ready_cluster("c", nodes(1, 8));
  const Job pinned = job_of(make_gpu_gang(1, 8), {1});
  EXPECT_FALSE(PlacementPolicy::eligible(cluster, 0, pinned));
  EXPECT_TRUE(PlacementPolicy::eligible(cluster, 1, pinned));
  EXPECT_EQ(first_refusing(FilterInput{cluster, 0, pinned, 0}, FilterScope::kEligible),
            find_cluster_filter("pinned-clusters"));
  EXPECT_TRUE(PlacementPolicy::eligible(cluster, 7, job_of(make_gpu_gang(1, 8))))
      << "unpinned: any cluster";
}

TEST(PlacementPolicyEligibility, AClusterWithoutTheSelectedGpuProductIsNotWorthTrying) {
  const ClusterState t4 = ready_cluster("t4", nodes(2, 8, 64, "t4", kT4));
  const ClusterState a100 = ready_cluster("a100", nodes(2, 8, 64, "a100", kA100));
  GangShape gang;
  gang.tasks.push_back(task_of(4, kA100));
  const Job job = job_of(gang);
  EXPECT_TRUE(PlacementPolicy::eligible(t4, 0, job)) << "ready and allowed";
  EXPECT_FALSE(PlacementPolicy::worth_trying(t4, 0, job, 0)) << "no A100 GPUs free in total";
  EXPECT_TRUE(PlacementPolicy::worth_trying(a100, 1, job, 0));
}

TEST(PlacementPolicyEligibility, AClusterThatRefusedTheJobIsSkippedUntilItsBackoffRunsOut) {
  const ClusterState cluster = ready_cluster("c", nodes(1, 8));
  Job job = job_of(make_gpu_gang(1, 8));
  job.notes().backoffs.push_back(ClusterBackoff{0, 1, 2'000});
  EXPECT_FALSE(PlacementPolicy::worth_trying(cluster, 0, job, 1'999));
  EXPECT_TRUE(PlacementPolicy::eligible(cluster, 0, job)) << "a backoff only skips the tries";
  EXPECT_TRUE(backed_off(job, 0, 1'999));
  EXPECT_FALSE(backed_off(job, 1, 1'999)) << "another cluster is not backed off";
  EXPECT_TRUE(PlacementPolicy::worth_trying(cluster, 0, job, 2'000));
}

TEST(PlacementPolicyEligibility, ACordonedClusterIsNotEligible) {
  ClusterState cluster = ready_cluster("c", nodes(1, 8));
  const Job job = job_of(make_gpu_gang(1, 8));
  cluster.set_cordoned(true);
  EXPECT_FALSE(PlacementPolicy::eligible(cluster, 0, job));
  cluster.set_cordoned(false);
  EXPECT_TRUE(PlacementPolicy::eligible(cluster, 0, job));
}

TEST(PlacementPolicyEligibility, TheClusterSelectorMatchesTheClustersLabels) {
  ClusterState eu_gold = ready_cluster("a", nodes(1, 8));
  eu_gold.set_labels({{"region", "eu"}, {"tier", "gold"}});
  ClusterState eu = ready_cluster("b", nodes(1, 8));
  eu.set_labels({{"region", "eu"}});
  Job job = job_of(make_gpu_gang(1, 8));
  EXPECT_TRUE(PlacementPolicy::eligible(eu, 1, job)) << "no selector: any cluster";
  job.notes().cluster_selector = {{"region", "eu"}, {"tier", "gold"}};
  EXPECT_TRUE(PlacementPolicy::eligible(eu_gold, 0, job));
  EXPECT_FALSE(PlacementPolicy::eligible(eu, 1, job)) << "no tier label";
}

// ------------------------------------------------------------------ ranking

TEST(PlacementPolicyRanking, MostPackedClusterFirstTiesByIndexIneligibleLeftOut) {
  std::vector<ClusterState> clusters;
  clusters.push_back(ready_cluster("empty", nodes(2, 8)));     // 16 free
  clusters.push_back(ready_cluster("half", nodes(1, 8)));      // 8 free
  clusters.push_back(ready_cluster("half-too", nodes(1, 8)));  // 8 free
  clusters.push_back(ready_cluster("tight", nodes(1, 8)));
  clusters[3].take(0, gpus(6));  // 2 free: too little for the job
  clusters.push_back(ready_cluster("down", nodes(1, 8)));
  clusters[4].set_ready(false);
  const Job job = job_of(make_gpu_gang(4, 8));
  EXPECT_EQ(ranked(PlacementPolicy(), clusters, job), (std::vector<ClusterIndex>{1, 2, 0}));
}

// The seam a new score plugs into: a policy built from other scores ranks
// differently without any change to the pass.
std::int64_t most_free(const ScoreInput& input) {
  return input.cluster.total_free().get(kGpu);
}

TEST(PlacementPolicyRanking, ScoresAreRegisteredByNameAndAPolicyRanksByItsScores) {
  ASSERT_NE(find_cluster_score("most-packed"), nullptr);
  EXPECT_EQ(find_cluster_score("no-such-score"), nullptr);
  EXPECT_FALSE(registered_cluster_scores().empty());

  std::vector<ClusterState> clusters;
  clusters.push_back(ready_cluster("small", nodes(1, 8)));
  clusters.push_back(ready_cluster("big", nodes(3, 8)));
  const Job job = job_of(make_gpu_gang(1, 8));
  EXPECT_EQ(ranked(PlacementPolicy(), clusters, job), (std::vector<ClusterIndex>{0, 1}));
  const PlacementPolicy spread({ClusterScore{"most-free", &most_free, 1}});
  EXPECT_EQ(ranked(spread, clusters, job), (std::vector<ClusterIndex>{1, 0}));
}

TEST(PlacementPolicyRanking, TheCorePlacesByThePolicyItsOptionsName) {
  SchedulerOptions options;
  options.placement = PlacementPolicy({ClusterScore{"most-free", &most_free, 1}});
  SchedulerCore core(options);
  const ClusterIndex small = core.add_cluster("small");
  const ClusterIndex big = core.add_cluster("big");
  core.report_usage(small, nodes(1, 8), {});
  core.report_usage(big, nodes(3, 8), {});
  core.set_cluster_ready(small, true);
  core.set_cluster_ready(big, true);
  JobRequest request;
  request.name = "one";
  request.gang = make_gpu_gang(1, 8);
  const JobId id = core.submit(std::move(request), 0);
  ASSERT_EQ(core.schedule(0).size(), 1u);
  EXPECT_EQ(core.job(id).cluster, big) << "the default policy would pick the more packed small";
}

TEST(PlacementPolicyRanking, HoldsGoOnTheEligibleClusterWithTheMostFreeGpus) {
  std::vector<ClusterState> clusters;
  clusters.push_back(ready_cluster("small", nodes(1, 8)));
  clusters.push_back(ready_cluster("big", nodes(3, 8)));
  clusters.push_back(ready_cluster("too-small", nodes(1, 4)));
  const PlacementPolicy policy;
  EXPECT_EQ(policy.choose_hold_cluster(clusters, job_of(make_gpu_gang(8, 8))), 1u);
  EXPECT_EQ(policy.choose_hold_cluster(clusters, job_of(make_gpu_gang(8, 8), {0, 2})), 0u);
  EXPECT_EQ(policy.choose_hold_cluster(clusters, job_of(make_gpu_gang(8, 8), {2})), kNoCluster)
      << "a cluster that could never hold it is not chosen";
  for (NodeIndex n = 0; n < clusters[1].node_count(); ++n) clusters[1].hold_node(n, 99);
  EXPECT_EQ(policy.choose_hold_cluster(clusters, job_of(make_gpu_gang(8, 8))), 0u)
      << "a cluster whose nodes are all held is not chosen";
}

// ------------------------------------------------------------------ nodes

TEST(PlacementPolicyNodes, SelectorMatchesWhenEveryKeyHasItsValue) {
  const Labels node{{"zone", "a"}, {std::string(kGpuProductLabel), "A100"}};
  EXPECT_TRUE(PlacementPolicy::matches_selector(node, {}));
  EXPECT_TRUE(PlacementPolicy::matches_selector(node, {{"zone", "a"}}));
  EXPECT_TRUE(PlacementPolicy::matches_selector(node, node));
  EXPECT_FALSE(PlacementPolicy::matches_selector(node, {{"zone", "b"}}));
  EXPECT_FALSE(PlacementPolicy::matches_selector(node, {{"zone", "a"}, {"rack", "1"}}));
}

TEST(PlacementPolicyNodes, ChoosesTheBestFitMatchingNodeNotHeldForOthers) {
  std::vector<NodeSpec> specs = nodes(2, 8, 64, "t4", kT4);
  for (const NodeSpec& spec : nodes(2, 8, 64, "a100", kA100)) specs.push_back(spec);
  ClusterState cluster = ready_cluster("c", specs);
  cluster.take(0, gpus(6));  // t4-0: 2 free
  cluster.take(3, gpus(4));  // a100-1: 4 free
  const PlacementPolicy policy;
  EXPECT_EQ(policy.choose_node(cluster, task_of(2), kNoOwner), 0u) << "best fit: the 2-GPU hole";
  EXPECT_EQ(policy.choose_node(cluster, task_of(2, kA100), kNoOwner), 3u) << "best fit among A100s";
  EXPECT_EQ(policy.choose_node(cluster, task_of(8, kA100), kNoOwner), 2u);
  cluster.hold_node(3, 7);
  EXPECT_EQ(policy.choose_node(cluster, task_of(2, kA100), kNoOwner), 2u) << "a100-1 is held for 7";
  EXPECT_EQ(policy.choose_node(cluster, task_of(2, kA100), 7), 3u) << "but not from 7 itself";
  EXPECT_FALSE(policy.choose_node(cluster, task_of(2, {{"zone", "x"}}), kNoOwner).has_value());
}

// Four 8-GPU nodes, each with 4 GPUs taken: node 0's run ends at 100, node
// 1's at 1,000, node 2's at 10,000, node 3's never (no limit). Node 4 is idle.
ClusterState half_busy_cluster() {
  ClusterState cluster = ready_cluster("c", nodes(5, 8, 64, "n"));
  const std::int64_t ends[] = {100, 1'000, 10'000, ReplicaTiming::kNoPlannedEnd};
  for (NodeIndex n = 0; n < 4; ++n) {
    cluster.take(n, gpus(4));
    cluster.add_planned_end(n, ends[n]);
  }
  return cluster;
}

TEST(PlacementPolicyNodes, AReplicaGoesWhereItKeepsTheNodeBusyNoLongerThanItsRunsDo) {
  ClusterState cluster = half_busy_cluster();
  const PlacementPolicy policy;
  const auto node_for = [&](std::int64_t gpu_count, std::int64_t end) {
    return policy.choose_node(cluster, task_of(gpu_count), kNoOwner, ReplicaTiming{end});
  };
  EXPECT_EQ(node_for(4, 90), 0u) << "node 0 drains soonest after it";
  EXPECT_EQ(node_for(4, 900), 1u);
  EXPECT_EQ(node_for(4, 5'000), 2u);
  EXPECT_EQ(node_for(4, 20'000), 3u) << "only node 3 (no limit) runs longer";
  EXPECT_EQ(node_for(8, 50), 4u) << "fills the idle node: no other has room";
  cluster.take(3, gpus(4));
  EXPECT_EQ(node_for(2, 20'000), 2u) << "extends node 2 the least; the idle node stays whole";
  EXPECT_EQ(policy.choose_node(cluster, task_of(4), kNoOwner), 0u)
      << "without an end: best fit, as before";
}

TEST(PlacementPolicyNodes, AGangsPlanTakesTheNodesThatDrainFirstIdleOnesFirst) {
  ClusterState cluster = half_busy_cluster();
  for (NodeIndex n = 0; n < 4; ++n) cluster.give(n, gpus(4));  // a plan's view: all ended
  const PlacementPolicy policy;
  const ReplicaTiming plan{ReplicaTiming::kNoPlannedEnd, true};
  EXPECT_EQ(policy.choose_node(cluster, task_of(8), kNoOwner, plan), 4u);
  cluster.take(4, gpus(8));
  EXPECT_EQ(policy.choose_node(cluster, task_of(8), kNoOwner, plan), 0u);
  cluster.remove_planned_end(0, 100);
  EXPECT_EQ(cluster.drain_time(0), kIdleNode);
  EXPECT_EQ(policy.choose_node(cluster, task_of(8), kNoOwner, plan), 0u);
  cluster.take(0, gpus(8));
  EXPECT_EQ(policy.choose_node(cluster, task_of(8), kNoOwner, plan), 1u);
}

TEST(PlacementPolicyNodes, HoldsTheMatchingNodeWithTheMostRoomLeft) {
  ClusterState cluster = ready_cluster("c", nodes(3, 8, 64, "a100", kA100));
  cluster.take(0, gpus(4));
  std::vector<ResourceVector> promised(cluster.node_count());
  const PlacementPolicy policy;
  EXPECT_EQ(policy.choose_hold_node(cluster, task_of(8, kA100), promised, 5), 1u)
      << "most free GPUs, lower index on ties";
  promised[1] += gpus(8);
  EXPECT_EQ(policy.choose_hold_node(cluster, task_of(8, kA100), promised, 5), 2u);
  cluster.hold_node(2, 6);
  EXPECT_EQ(policy.choose_hold_node(cluster, task_of(8, kA100), promised, 5), 0u)
      << "node 2 is held for job 6; node 0 holds 8 once its jobs end";
  EXPECT_FALSE(policy.choose_hold_node(cluster, task_of(1, kT4), promised, 5).has_value());
}

}  // namespace
}  // namespace gantry::hub
