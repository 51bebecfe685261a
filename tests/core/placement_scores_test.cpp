// Cluster scores and node-level fit: which cluster each registered policy
// prefers, OCM's normalisation, per-queue policies, the scores a decision
// records for describe, and fragmentation (enough free GPUs in total, no node
// with room) never placing a gang where it cannot run.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hub/field_error.hpp"
#include "hub/ocm_score.hpp"
#include "hub/placement_policy.hpp"
#include "tests/core/core_harness.hpp"

namespace gantry::hub {
namespace {

using testing::gpus;
using testing::nodes;

// `free` GPUs left on each 8-GPU node (the rest taken by something else).
std::vector<NodeSpec> nodes_with_free(const std::string& prefix,
                                      const std::vector<std::int64_t>& free,
                                      std::int64_t capacity = 8) {
  std::vector<NodeSpec> out = nodes(static_cast<int>(free.size()), capacity, 64, prefix);
  for (std::size_t i = 0; i < free.size(); ++i) out[i].allocated = gpus(capacity - free[i]);
  return out;
}

ClusterState ready_cluster(const std::string& name, const std::vector<NodeSpec>& specs) {
  ClusterState cluster(name);
  cluster.set_nodes(specs);
  cluster.set_ready(true);
  return cluster;
}

Job job_of(GangShape gang) {
  count_selected_gpu_products(gang);
  Job job;
  job.set_request(gang.total(), gang.minimum());
  job.gang = std::move(gang);
  return job;
}

const PlacementPolicy& policy(const char* name) {
  const PlacementPolicy* found = find_placement_policy(name);
  EXPECT_NE(found, nullptr) << name;
  return *found;
}

std::vector<ClusterRank> ranked(const PlacementPolicy& policy,
                                const std::vector<ClusterState>& clusters, const Job& job) {
  std::vector<ClusterRank> out;
  policy.rank_clusters(clusters, job, TopologyTiers{}, 0, out);
  return out;
}

// ------------------------------------------------------------------ OCM

TEST(OcmScore, NormalisesAsOcmsScoreNormalizer) {
  EXPECT_EQ(ocm_normalize(0, 0, 20), -100) << "at the minimum";
  EXPECT_EQ(ocm_normalize(-3, 0, 20), -100);
  EXPECT_EQ(ocm_normalize(2, 0, 20), -80);
  EXPECT_EQ(ocm_normalize(3, 0, 20), -70) << "OCM's own example: 3 free GPUs score -70";
  EXPECT_EQ(ocm_normalize(10, 0, 20), 0);
  EXPECT_EQ(ocm_normalize(7.5, 0, 20), -25);
  EXPECT_EQ(ocm_normalize(1.5, 0, 20), -85);
  EXPECT_EQ(ocm_normalize(0.1, 0, 20), -99) << "truncated toward zero";
  EXPECT_EQ(ocm_normalize(20, 0, 20), 100);
  EXPECT_EQ(ocm_normalize(25, 0, 20), 100) << "above the maximum";
}

TEST(OcmScore, NodeScopeIsTheNodeWithMostFreeClusterScopeTheSum) {
  // Three nodes: 8 GPUs / 32 cores / 256 GiB each, some taken.
  std::vector<NodeSpec> specs = nodes(3, 8, 32, "n");
  const std::int64_t gib = std::int64_t{1} << 30;
  for (NodeSpec& spec : specs) spec.allocatable.set(kMemory, 256 * gib * kMilli);
  specs[0].allocated = gpus(2, 8);                      // 6 GPUs, 24 cores free
  specs[1].allocated = gpus(5, 30);                     // 3 GPUs, 2 cores free
  specs[2].allocated = gpus(8, 0);                      // 0 GPUs, 32 cores free
  specs[2].allocated.set(kMemory, 128 * gib * kMilli);  // 128 GiB free there
  const ClusterState cluster = ready_cluster("c", specs);
  const OcmScores scores = ocm_scores(cluster);
  EXPECT_EQ(scores.gpu_node_available, -40) << "6 of 20";
  EXPECT_EQ(scores.gpu_cluster_available, -10) << "9 of 20";
  EXPECT_EQ(scores.cpu_node_available, -36) << "32 of 100 cores";
  EXPECT_EQ(scores.cpu_cluster_available, 16) << "58 of 100 cores";
  EXPECT_EQ(scores.mem_node_available, -50) << "256 GiB of 1 TiB";
  EXPECT_EQ(scores.mem_cluster_available, 25) << "640 GiB of 1 TiB";
}

// ------------------------------------------------------------------ binpack

TEST(BinpackPolicy, PrefersTheClusterWhoseNodesTheGangLeavesFullest) {
  std::vector<ClusterState> clusters;
  clusters.push_back(ready_cluster("roomy", nodes_with_free("roomy", {8})));  // leaves 6
  clusters.push_back(
      ready_cluster("holey", nodes_with_free("holey", {2, 8})));  // leaves 0 on holey-0
  clusters.push_back(ready_cluster("three", nodes_with_free("three", {3, 3})));  // leaves 1
  const std::vector<ClusterRank> order =
      ranked(policy("binpack"), clusters, job_of(make_gpu_gang(2, 8)));
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0].cluster, 1u);
  EXPECT_EQ(order[0].score, 0);
  EXPECT_EQ(order[1].cluster, 2u);
  EXPECT_EQ(order[1].score, -1);
  EXPECT_EQ(order[2].cluster, 0u);
  EXPECT_EQ(order[2].score, -6);
}

TEST(BinpackPolicy, CountsANodeSharedByTwoReplicasOnce) {
  // Two 4-GPU replicas fill the one free 8-GPU node: nothing is left on it.
  std::vector<ClusterState> clusters;
  clusters.push_back(ready_cluster("one-node", nodes_with_free("a", {8})));
  clusters.push_back(ready_cluster("two-nodes", nodes_with_free("b", {5, 5})));  // leaves 1 + 1
  const std::vector<ClusterRank> order =
      ranked(policy("binpack"), clusters, job_of(make_uniform_gang(2, gpus(4))));
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(order[0].cluster, 0u);
  EXPECT_EQ(order[0].score, 0);
  EXPECT_EQ(order[1].score, -2);
}

TEST(BinpackPolicy, TiesGoToTheMorePackedClusterThenTheLowerIndex) {
  std::vector<ClusterState> clusters;
  clusters.push_back(ready_cluster("big", nodes_with_free("a", {8, 8, 8})));
  clusters.push_back(ready_cluster("small", nodes_with_free("b", {8})));
  clusters.push_back(ready_cluster("small-too", nodes_with_free("c", {8})));
  const std::vector<ClusterRank> order =
      ranked(policy("binpack"), clusters, job_of(make_gpu_gang(8, 8)));
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0].cluster, 1u);
  EXPECT_EQ(order[1].cluster, 2u);
  EXPECT_EQ(order[2].cluster, 0u);
}

TEST(BinpackPolicy, PlacesReplicasOnTheBestFittingNodes) {
  const ClusterState cluster = ready_cluster("c", nodes_with_free("c", {8, 3, 5}));
  TaskShape task{"w", 1, gpus(3), {}};
  EXPECT_EQ(policy("binpack").choose_node(cluster, task, kNoOwner), 1u) << "the 3-GPU hole";
}

// ------------------------------------------------------------------ spread

TEST(SpreadPolicy, PrefersTheClusterWithTheMostFreeGpusAndTheEmptiestNode) {
  std::vector<ClusterState> clusters;
  clusters.push_back(ready_cluster("small", nodes_with_free("a", {8})));
  clusters.push_back(ready_cluster("large", nodes_with_free("b", {3, 8, 5})));
  const std::vector<ClusterRank> order =
      ranked(policy("spread"), clusters, job_of(make_gpu_gang(2, 8)));
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(order[0].cluster, 1u);
  EXPECT_EQ(order[0].score, 16'000) << "free milli-GPUs";
  TaskShape task{"w", 1, gpus(2), {}};
  EXPECT_EQ(policy("spread").choose_node(clusters[1], task, kNoOwner), 1u)
      << "the 8 free, not the 3";
}

// ------------------------------------------------------------------ gpu-available

TEST(GpuAvailablePolicy, SumsOcmsNodeAndClusterScores) {
  std::vector<ClusterState> clusters;
  clusters.push_back(
      ready_cluster("one-big-node", nodes_with_free("a", {8}, 16)));  // node 8: -20, cluster 8: -20
  clusters.push_back(ready_cluster(
      "many-small", nodes_with_free("b", {4, 4, 4, 4})));  // node 4: -60, cluster 16: 60
  const std::vector<ClusterRank> order =
      ranked(policy("gpu-available"), clusters, job_of(make_gpu_gang(2, 8)));
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(order[0].cluster, 1u);
  EXPECT_EQ(order[0].score, 0);
  EXPECT_EQ(order[1].cluster, 0u);
  EXPECT_EQ(order[1].score, -40);
}

TEST(GpuAvailablePolicy, CountsTheGpuProductTheJobSelects) {
  const Labels a100{{std::string(kGpuProductLabel), "A100"}};
  const Labels t4{{std::string(kGpuProductLabel), "T4"}};
  std::vector<NodeSpec> mixed = nodes(1, 8, 64, "a100", a100);
  for (const NodeSpec& spec : nodes(3, 8, 64, "t4", t4)) mixed.push_back(spec);
  std::vector<ClusterState> clusters;
  clusters.push_back(ready_cluster("mixed", mixed));                       // 8 A100s
  clusters.push_back(ready_cluster("a100s", nodes(2, 8, 64, "b", a100)));  // 16 A100s
  GangShape gang = make_gpu_gang(2, 8);
  gang.tasks[0].node_selector = a100;
  const std::vector<ClusterRank> order = ranked(policy("gpu-available"), clusters, job_of(gang));
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(order[0].cluster, 1u) << "32 GPUs in mixed, but only 8 of them A100";
  EXPECT_EQ(order[1].score, -40) << "node 8 (-20) + cluster 8 A100s (-20)";
}

// ------------------------------------------------------------------ in the core

class PlacementScoresTest : public testing::CoreHarness {};

TEST_F(PlacementScoresTest, AQueueNamesItsPolicyAndChildQueuesInheritIt) {
  add_cluster("small", nodes(1, 8, 64, "small"));
  add_cluster("large", nodes(3, 8, 64, "large"));
  QueueSpec spread;
  spread.name = "spread";
  spread.placement = "spread";
  apply_queue(spread);
  QueueSpec child;
  child.name = "child";
  child.parent = "spread";
  apply_queue(child);
  submit(testing::gpu_job("packed", 1));
  submit(testing::gpu_job("spread-out", 1, "child"));
  pass();
  EXPECT_EQ(core.cluster(job("packed").cluster).name(), "small") << "binpack, the hub's default";
  EXPECT_EQ(core.cluster(job("spread-out").cluster).name(), "large");
  EXPECT_EQ(core.policy_for(job("spread-out")).name(), "spread");
  EXPECT_EQ(core.policy_for(job("packed")).name(), "binpack");
}

TEST_F(PlacementScoresTest, AnUnknownPolicyIsRefusedNamingTheAnnotation) {
  QueueSpec spec;
  spec.name = "q";
  spec.placement = "tightest";
  try {
    apply_queue(spec);
    FAIL() << "accepted";
  } catch (const FieldError& e) {
    EXPECT_NE(std::string(e.what()).find("gantry.io/placement"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("tightest"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("binpack, spread, gpu-available, topology"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(core.find_queue("q"));
}

TEST_F(PlacementScoresTest, TheDecisionKeepsEveryCandidatesScoreForDescribe) {
  add_cluster("roomy", nodes_with_free("roomy", {8}));
  add_cluster("holey", nodes_with_free("holey", {2, 8}));
  add_cluster("full", nodes_with_free("full", {0}));
  submit(testing::gpu_job("job", 2));
  pass();
  ASSERT_NE(job("job").placement_notes, nullptr);
  const std::vector<ClusterRank>& scores = job("job").placement_notes->last_scores;
  ASSERT_EQ(scores.size(), 2u) << "a cluster with no room is no candidate";
  EXPECT_EQ(core.cluster(scores[0].cluster).name(), "holey");
  EXPECT_EQ(scores[0].score, 0);
  EXPECT_EQ(core.cluster(scores[1].cluster).name(), "roomy");
  EXPECT_EQ(scores[1].score, -6);
  EXPECT_EQ(core.cluster(job("job").cluster).name(), "holey");
}

// ------------------------------------------------------------------ fragmentation

TEST_F(PlacementScoresTest, EnoughGpusInTotalButNoNodeWithRoomIsNotPlacedThere) {
  add_cluster("fragmented", nodes_with_free("f", {2, 2, 2, 2}));  // 8 free, 2 per node
  submit(testing::gpu_job("four", 4));
  EXPECT_TRUE(pass().dispatched.empty());
  const Job& waiting = job("four");
  EXPECT_EQ(waiting.reason.kind, PendingReason::Kind::kGangDoesNotFitNodes);
  EXPECT_EQ(core.cluster(waiting.reason.cluster).name(), "fragmented");
  EXPECT_EQ(waiting.reason.replicas_placed, 0);
  const std::string text = core.reason_text(waiting);
  EXPECT_NE(text.find("gang does not fit on nodes"), std::string::npos) << text;
  EXPECT_NE(text.find("best cluster fragmented fits 0"), std::string::npos) << text;
  // A cluster with one node of room takes it.
  add_cluster("whole", nodes_with_free("w", {4}));
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"four"});
  EXPECT_EQ(core.cluster(job("four").cluster).name(), "whole");
}

TEST_F(PlacementScoresTest, AGangPlacesEveryReplicaOnANodeOrNone) {
  const ClusterIndex c =
      add_cluster("c", nodes_with_free("c", {4, 2, 2}));  // 8 free: one 4-GPU replica fits
  JobRequest request;
  request.name = "pair";
  request.gang = make_uniform_gang(2, gpus(4));
  submit(std::move(request));
  EXPECT_TRUE(pass().dispatched.empty());
  EXPECT_EQ(job("pair").reason.kind, PendingReason::Kind::kGangDoesNotFitNodes);
  EXPECT_EQ(job("pair").reason.replicas_placed, 1);
  EXPECT_EQ(core.cluster(c).total_free().gpus(), 8) << "the replica that fitted is not held";
}

TEST_F(PlacementScoresTest, CpuOnTheNodeCountsToo) {
  std::vector<NodeSpec> specs = nodes(2, 8, 64, "c");
  specs[0].allocated = gpus(0, 60);  // 8 GPUs but 4 cores free
  specs[1].allocated = gpus(6, 0);   // 2 GPUs, 64 cores free
  add_cluster("c", specs);
  JobRequest request;
  request.name = "cpu-heavy";
  request.gang = make_uniform_gang(1, gpus(4, 16));
  submit(std::move(request));
  EXPECT_TRUE(pass().dispatched.empty()) << "10 GPUs and 68 cores free, but no node has 4 and 16";
  EXPECT_EQ(job("cpu-heavy").reason.kind, PendingReason::Kind::kGangDoesNotFitNodes);
}

}  // namespace
}  // namespace gantry::hub
