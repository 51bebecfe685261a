// Network-topology-aware placement (Volcano's spec.networkTopology and
// tasks[].partitionPolicy) on domains read from node labels: hard keeps the
// gang in one domain of an allowed tier or waits, soft prefers one, each
// partition stays in one domain, unlabelled nodes never qualify for hard, and
// a hard gang is never split across clusters.
#include "hub/topology.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "hub/job_request.hpp"
#include "hub/placement.hpp"
#include "tests/core/core_harness.hpp"

namespace gantry::hub {
namespace {

using testing::gpus;
using Mode = TopologyConstraint::Mode;

const std::string kTier1 = "gantry.io/topology-tier-1";
const std::string kTier2 = "gantry.io/topology-tier-2";

// One 8-GPU node per entry, labelled tier 1 = `domain` (none when empty) and
// tier 2 = `rack` (none when empty), named after its domain and position.
struct NodeAt {
  std::string domain{};
  std::string rack{};
  std::int64_t used_gpus = 0;
};

std::vector<NodeSpec> labelled_nodes(const std::vector<NodeAt>& at) {
  std::vector<NodeSpec> out;
  for (std::size_t i = 0; i < at.size(); ++i) {
    Labels labels;
    if (!at[i].domain.empty()) labels[kTier1] = at[i].domain;
    if (!at[i].rack.empty()) labels[kTier2] = at[i].rack;
    const std::string name = (at[i].domain.empty() ? "bare" : at[i].domain) + std::to_string(i);
    out.push_back(NodeSpec{name, labels, gpus(8, 64), gpus(at[i].used_gpus)});
  }
  return out;
}

ClusterState cluster_of(const std::vector<NodeAt>& at) {
  ClusterState cluster("c");
  cluster.set_nodes(labelled_nodes(at));
  return cluster;
}

GangShape gang_of(std::int32_t replicas, std::int64_t gpu_each, Mode mode = Mode::kNone,
                  std::int32_t highest_tier = 1) {
  GangShape gang = make_uniform_gang(replicas, gpus(gpu_each));
  gang.topology.mode = mode;
  gang.topology.highest_tier = highest_tier;
  return gang;
}

// The tier-1 domain of each placed replica, in placement order.
std::vector<std::string> domains_of(const ClusterState& cluster,
                                    const std::vector<NodeAssignment>& out,
                                    const std::string& label = kTier1) {
  std::vector<std::string> domains;
  for (const NodeAssignment& entry : out) {
    const Labels& labels = cluster.node(entry.node).labels;
    const auto it = labels.find(label);
    domains.push_back(it == labels.end() ? "" : it->second);
  }
  return domains;
}

std::set<std::string> distinct(const std::vector<std::string>& values) {
  return {values.begin(), values.end()};
}

// Domain a has 4 GPUs free on a0 and none on a1; domain b has 4 + 8 free.
// Best fit alone takes the two 4-GPU holes, one in each domain.
const std::vector<NodeAt> kTwoHoles{{"a", "", 4}, {"a", "", 8}, {"b", "", 4}, {"b", "", 0}};

TEST(TopologyPlacement, WithoutATopologyBestFitMixesDomains) {
  ClusterState cluster = cluster_of(kTwoHoles);
  GangPlacer placer;
  std::vector<NodeAssignment> out;
  ASSERT_TRUE(placer.place(cluster, gang_of(2, 4), out).fits);
  EXPECT_EQ(distinct(domains_of(cluster, out)), (std::set<std::string>{"a", "b"}))
      << "the control for the hard case: plain placement does cross domains";
}

TEST(TopologyPlacement, HardKeepsTheGangInOneDomain) {
  ClusterState cluster = cluster_of(kTwoHoles);
  GangPlacer placer;
  std::vector<NodeAssignment> out;
  const FitResult fit = placer.place(cluster, gang_of(2, 4, Mode::kHard), out);
  ASSERT_TRUE(fit.fits);
  EXPECT_EQ(domains_of(cluster, out), (std::vector<std::string>{"b", "b"}));
}

TEST(TopologyPlacement, HardWaitsWhenNoDomainFitsThoughTheClusterDoes) {
  ClusterState cluster = cluster_of({{"a"}, {"a"}, {"b"}, {"b"}});
  const ResourceVector before = cluster.total_free();
  GangPlacer placer;
  std::vector<NodeAssignment> out;
  const FitResult fit = placer.place(cluster, gang_of(3, 8, Mode::kHard), out);
  EXPECT_FALSE(fit.fits);
  EXPECT_EQ(fit.placed, 2) << "the most one domain held";
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(cluster.total_free(), before) << "a failed gang leaves nothing taken";
  EXPECT_TRUE(placer.place(cluster, gang_of(3, 8), out).fits) << "the cluster fits it in total";
}

TEST(TopologyPlacement, AWiderTierIsUsedOnlyWhenAllowed) {
  ClusterState cluster =
      cluster_of({{"a", "r1"}, {"a", "r1"}, {"b", "r1"}, {"b", "r1"}, {"c", "r2"}, {"c", "r2"}});
  GangPlacer placer;
  std::vector<NodeAssignment> out;
  EXPECT_FALSE(placer.place(cluster, gang_of(3, 8, Mode::kHard, 1), out).fits);
  ASSERT_TRUE(placer.place(cluster, gang_of(3, 8, Mode::kHard, 2), out).fits);
  EXPECT_EQ(distinct(domains_of(cluster, out, kTier2)), std::set<std::string>{"r1"});
  release(cluster, out);
  ASSERT_TRUE(placer.place(cluster, gang_of(2, 8, Mode::kHard, 2), out).fits);
  EXPECT_EQ(distinct(domains_of(cluster, out)).size(), 1u) << "the tightest tier is tried first";
}

TEST(TopologyPlacement, HardIgnoresNodesWithoutTheLabel) {
  ClusterState cluster = cluster_of({{""}, {""}, {"a"}});
  GangPlacer placer;
  std::vector<NodeAssignment> out;
  const FitResult fit = placer.place(cluster, gang_of(2, 8, Mode::kHard), out);
  EXPECT_FALSE(fit.fits);
  EXPECT_EQ(fit.placed, 1);
  EXPECT_TRUE(placer.place(cluster, gang_of(2, 8, Mode::kSoft), out).fits);
}

TEST(TopologyPlacement, SoftPrefersOneDomainAndElseFallsBack) {
  ClusterState cluster = cluster_of(kTwoHoles);
  GangPlacer placer;
  std::vector<NodeAssignment> out;
  ASSERT_TRUE(placer.place(cluster, gang_of(2, 4, Mode::kSoft), out).fits);
  EXPECT_EQ(domains_of(cluster, out), (std::vector<std::string>{"b", "b"}));
  release(cluster, out);
  ASSERT_TRUE(placer.place(cluster, gang_of(4, 4, Mode::kSoft), out).fits)
      << "no domain holds 4 x 4 GPUs: soft places it anyway";
  EXPECT_EQ(distinct(domains_of(cluster, out)), (std::set<std::string>{"a", "b"}));
}

// c0 comes first, so best fit alone would pair it with a1 in one partition.
const std::vector<NodeAt> kPartitionNodes{{"c"}, {"a"}, {"b"}, {"a"}, {"b"}};

GangShape partitioned(std::int32_t replicas, std::int32_t size, Mode mode,
                      std::int32_t min_partitions = 0) {
  GangShape gang = gang_of(replicas, 8);
  gang.tasks[0].partition_size = size;
  gang.tasks[0].min_partitions = min_partitions;
  gang.tasks[0].partition_topology.mode = mode;
  return gang;
}

TEST(TopologyPlacement, EachPartitionStaysInOneDomain) {
  ClusterState cluster = cluster_of(kPartitionNodes);
  GangPlacer placer;
  std::vector<NodeAssignment> out;
  ASSERT_TRUE(placer.place(cluster, partitioned(4, 2, Mode::kHard), out).fits);
  const std::vector<std::string> domains = domains_of(cluster, out);
  ASSERT_EQ(domains.size(), 4u);
  EXPECT_EQ(domains[0], domains[1]) << "partition 1";
  EXPECT_EQ(domains[2], domains[3]) << "partition 2";
  EXPECT_NE(domains[0], domains[2]) << "partitions may take different domains";

  release(cluster, out);
  ASSERT_TRUE(placer.place(cluster, gang_of(4, 8), out).fits);
  const std::vector<std::string> plain = domains_of(cluster, out);
  EXPECT_NE(plain[0], plain[1]) << "the control: without partitions the first pair mixes domains";
}

TEST(TopologyPlacement, HardPartitionsWaitWhenAPartitionFindsNoDomain) {
  ClusterState cluster = cluster_of(kPartitionNodes);
  GangPlacer placer;
  std::vector<NodeAssignment> out;
  const FitResult fit = placer.place(cluster, partitioned(5, 3, Mode::kHard), out);
  EXPECT_FALSE(fit.fits) << "no domain holds 3 replicas";
  EXPECT_TRUE(placer.place(cluster, partitioned(5, 3, Mode::kSoft), out).fits);
}

TEST(TopologyPlacement, MinPartitionsLetsTheGangStartWithFewerWholePartitions) {
  ClusterState cluster = cluster_of({{"a"}, {"a"}, {"b", "", 8}, {"b"}});
  GangPlacer placer;
  std::vector<NodeAssignment> out;
  GangShape gang = partitioned(4, 2, Mode::kHard, 1);
  gang.min_available = 2;
  const FitResult fit = placer.place(cluster, gang, out);
  ASSERT_TRUE(fit.fits);
  EXPECT_EQ(fit.placed, 2);
  EXPECT_EQ(domains_of(cluster, out), (std::vector<std::string>{"a", "a"}));
  release(cluster, out);
  gang.tasks[0].min_partitions = 2;
  EXPECT_FALSE(placer.place(cluster, gang, out).fits) << "two whole partitions needed";
}

TEST(TopologyPlacement, PartitionsStayInsideTheJobsDomain) {
  // Two tier-1 domains in each of two racks; the job must stay in one rack.
  ClusterState cluster = cluster_of(
      {{"a", "r1"}, {"c", "r2"}, {"c", "r2"}, {"a", "r1"}, {"b", "r1"}, {"b", "r1"}, {"d", "r2"}});
  GangPlacer placer;
  std::vector<NodeAssignment> out;
  GangShape gang = partitioned(4, 2, Mode::kHard);
  gang.topology = TopologyConstraint{Mode::kHard, 2};
  ASSERT_TRUE(placer.place(cluster, gang, out).fits);
  EXPECT_EQ(distinct(domains_of(cluster, out, kTier2)), std::set<std::string>{"r1"});
  const std::vector<std::string> domains = domains_of(cluster, out);
  EXPECT_EQ(domains[0], domains[1]);
  EXPECT_EQ(domains[2], domains[3]);
}

TEST(TopologyPlacement, TierLabelsCanBeRenamed) {
  ClusterState cluster("c");
  std::vector<NodeSpec> specs = labelled_nodes({{}, {}, {}});
  specs[0].labels["rack"] = "x";
  specs[1].labels["rack"] = "y";
  specs[2].labels["rack"] = "x";
  cluster.set_nodes(specs);
  TopologyTiers tiers;
  tiers.apply("1=rack");
  GangPlacer placer(PlacementPolicy::standard(), tiers);
  std::vector<NodeAssignment> out;
  ASSERT_TRUE(placer.place(cluster, gang_of(2, 8, Mode::kHard), out).fits);
  EXPECT_EQ(domains_of(cluster, out, "rack"), (std::vector<std::string>{"x", "x"}));
  EXPECT_FALSE(GangPlacer().place(cluster, gang_of(2, 8, Mode::kHard), out).fits)
      << "the default tier-1 label is on no node";
}

TEST(TopologyPlacement, ANewReportRegroupsTheDomains) {
  ClusterState cluster = cluster_of({{"a"}, {"b"}});
  GangPlacer placer;
  std::vector<NodeAssignment> out;
  EXPECT_FALSE(placer.place(cluster, gang_of(2, 8, Mode::kHard), out).fits);
  cluster.set_nodes(labelled_nodes({{"a"}, {"a"}}));
  EXPECT_TRUE(placer.place(cluster, gang_of(2, 8, Mode::kHard), out).fits)
      << "the grouping follows the cluster's report generation";
}

TEST(TopologyTiers, ReadsTierEqualsLabel) {
  TopologyTiers tiers;
  EXPECT_EQ(tiers.label(1), kTier1);
  EXPECT_EQ(tiers.label(3), "gantry.io/topology-tier-3");
  tiers.apply("2=topology.kubernetes.io/rack");
  EXPECT_EQ(tiers.label(2), "topology.kubernetes.io/rack");
  for (const char* bad : {"rack", "=rack", "0=rack", "9=rack", "x=rack", "1="})
    EXPECT_THROW(tiers.apply(bad), std::invalid_argument) << bad;
}

// ------------------------------------------------------------------ job request

std::shared_ptr<protocol::JobSpec> spec_of(std::int32_t replicas) {
  auto spec = std::make_shared<protocol::JobSpec>();
  spec->name = "j";
  protocol::TaskSpec task;
  task.name = "worker";
  task.replicas = replicas;
  spec->tasks.push_back(task);
  return spec;
}

TEST(TopologyJobRequest, ReadsNetworkTopologyAndPartitionPolicy) {
  auto spec = spec_of(4);
  EXPECT_FALSE(make_job_request(spec).gang.topology_aware()) << "none given: today's path";
  spec->network_topology = protocol::NetworkTopology{"hard", 0};
  JobRequest request = make_job_request(spec);
  EXPECT_EQ(request.gang.topology.mode, Mode::kHard);
  EXPECT_EQ(request.gang.topology.highest_tier, 1) << "Volcano's default tier";
  spec->network_topology = protocol::NetworkTopology{"soft", 2};
  EXPECT_EQ(make_job_request(spec).gang.topology.highest_tier, 2);

  spec->network_topology = {};
  spec->tasks[0].partition_policy = protocol::PartitionPolicy{2, 2, 1, {"hard", 2}};
  request = make_job_request(spec);
  const TaskShape& task = request.gang.tasks[0];
  EXPECT_EQ(task.partition_size, 2);
  EXPECT_EQ(task.min_partitions, 1);
  EXPECT_EQ(task.partition_topology.mode, Mode::kHard);
  EXPECT_EQ(task.partition_topology.highest_tier, 2);
  EXPECT_EQ(request.gang.min_available, 2) << "minPartitions x partitionSize, none given";
  EXPECT_TRUE(request.gang.topology_hard());
  spec->min_available = 4;
  EXPECT_EQ(make_job_request(spec).gang.min_available, 4) << "an explicit minAvailable wins";
}

// ------------------------------------------------------------------ scheduler

class TopologySchedulerTest : public testing::CoreHarness {
 protected:
  JobId submit_gang(const std::string& name, std::int32_t replicas, Mode mode, bool split) {
    JobRequest request;
    request.name = name;
    request.gang = gang_of(replicas, 8, mode);
    request.split_allowed = split;
    return submit(std::move(request));
  }
};

TEST_F(TopologySchedulerTest, AHardGangWaitsWithAReasonAndNeverSplits) {
  add_cluster("east", labelled_nodes({{"a"}, {"a"}, {"b"}}));
  add_cluster("west", labelled_nodes({{"c"}, {"c"}}));
  submit_gang("hard", 3, Mode::kHard, true);
  EXPECT_TRUE(pass().dispatched.empty());
  const Job& waiting = job("hard");
  EXPECT_EQ(waiting.reason.kind, PendingReason::Kind::kTopologyDoesNotFit);
  const std::string text = core.reason_text(waiting);
  EXPECT_NE(text.find("gantry.io/topology-tier-1"), std::string::npos) << text;
  EXPECT_NE(text.find("fits 2 in one domain"), std::string::npos) << text;

  submit_gang("soft", 4, Mode::kSoft, true);
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"soft"})
      << "the control: the same pool splits a soft gang; " << core.reason_text(job("soft"));
  EXPECT_EQ(core.find_dispatch(job("soft").dispatch)->parts.size(), 2u);
}

TEST_F(TopologySchedulerTest, AHardGangStartsWhereADomainFits) {
  add_cluster("east", labelled_nodes({{"a"}, {"b"}}));
  add_cluster("west", labelled_nodes({{"c"}, {"c"}}));
  submit_gang("hard", 2, Mode::kHard, false);
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"hard"});
  EXPECT_EQ(core.cluster(job("hard").cluster).name(), "west");
}

}  // namespace
}  // namespace gantry::hub
