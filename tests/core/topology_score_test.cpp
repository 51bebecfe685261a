// The topology policy (hub/topology_score.hpp, docs/adding-a-policy.md): a
// gang with a network-topology constraint goes first to the cluster where
// one domain of the hub's tiers holds it, where binpack would take the more
// packed cluster; a gang without one is ranked as binpack ranks it.
#include "hub/topology_score.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hub/placement_policy.hpp"
#include "tests/core/core_fixtures.hpp"

namespace gantry::hub {
namespace {

using testing::nodes;
using testing::ready_cluster;

// `count` free 8-GPU nodes whose `label` is `domain`.
std::vector<NodeSpec> rack(const std::string& prefix, int count, const std::string& label,
                           const std::string& domain) {
  return nodes(count, 8, 64, prefix, Labels{{label, domain}});
}

std::vector<NodeSpec> joined(std::vector<NodeSpec> a, const std::vector<NodeSpec>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Three 8-GPU replicas; `topology`: within one domain of tier 1, softly.
Job gang_of_24(bool topology) {
  GangShape gang = make_gpu_gang(24, 8);
  if (topology) gang.topology = TopologyConstraint{TopologyConstraint::Mode::kSoft, 1};
  return testing::job_of(std::move(gang));
}

// "split-racks": 24 free GPUs, 16 in each of its racks at most; "one-rack":
// 32 free GPUs, all in one rack. Nodes are labelled `label`.
std::vector<ClusterState> two_clusters(const std::string& label) {
  std::vector<ClusterState> clusters;
  clusters.push_back(ready_cluster(
      "split-racks", joined(rack("a", 2, label, "rack-a"), rack("b", 1, label, "rack-b"))));
  clusters.push_back(ready_cluster("one-rack", rack("c", 4, label, "rack-c")));
  return clusters;
}

std::vector<std::string> ranked(const char* policy_name, const std::vector<ClusterState>& clusters,
                                const Job& job, const TopologyTiers& tiers) {
  std::vector<RankedCluster> out;
  find_placement_policy(policy_name)->rank_clusters(clusters, job, tiers, 0, out);
  std::vector<std::string> names;
  for (const RankedCluster& each : out) names.push_back(clusters[each.cluster].name());
  return names;
}

const std::string kTier1 = TopologyTiers().label(1);

TEST(TopologyScoreTest, OneDomainsRoomUpToTheGangsMinimumPerTier) {
  const std::vector<ClusterState> clusters = two_clusters(kTier1);
  const TopologyTiers tiers;
  const Job job = gang_of_24(true);
  EXPECT_EQ(gpus_in_one_domain(ScoreInput{clusters[0], job, tiers}), 16) << "rack-a's two nodes";
  EXPECT_EQ(gpus_in_one_domain(ScoreInput{clusters[1], job, tiers}), 24) << "capped at the gang";
  EXPECT_EQ(gpus_in_one_domain(ScoreInput{clusters[1], gang_of_24(false), tiers}), 0)
      << "no constraint: no opinion";
}

TEST(TopologyScoreTest, AConstrainedGangGoesWhereOneRackHoldsIt) {
  const std::vector<ClusterState> clusters = two_clusters(kTier1);
  const TopologyTiers tiers;
  EXPECT_EQ(ranked("binpack", clusters, gang_of_24(true), tiers),
            (std::vector<std::string>{"split-racks", "one-rack"}))
      << "binpack: the more packed cluster";
  EXPECT_EQ(ranked("topology", clusters, gang_of_24(true), tiers),
            (std::vector<std::string>{"one-rack", "split-racks"}));
  EXPECT_EQ(ranked("topology", clusters, gang_of_24(false), tiers),
            ranked("binpack", clusters, gang_of_24(false), tiers))
      << "without a constraint, topology is binpack";
}

TEST(TopologyScoreTest, TheScoreReadsTheHubsTierLabels) {
  const std::vector<ClusterState> clusters = two_clusters("example.com/rack");
  EXPECT_EQ(ranked("topology", clusters, gang_of_24(true), TopologyTiers()),
            (std::vector<std::string>{"split-racks", "one-rack"}))
      << "the default tier label is on no node: no domain anywhere";
  TopologyTiers racks;
  racks.apply("1=example.com/rack");
  EXPECT_EQ(ranked("topology", clusters, gang_of_24(true), racks),
            (std::vector<std::string>{"one-rack", "split-racks"}));
}

}  // namespace
}  // namespace gantry::hub
