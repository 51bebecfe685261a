// A usage report's NVML GPU usage, OCM scores and fit note, as the hub answers them in
// ClusterInfo: the aggregates of cluster_info() alone, then through the
// actors (get clusters, describe cluster).
#include "actors/core_views.hpp"
#include "hub/reconciler.hpp"
#include "hub_actors_fixture.hpp"

namespace gantry::actors {
namespace {

constexpr std::int64_t kGi = 1024LL * 1024 * 1024;

protocol::GpuUsage gpu(std::int32_t index, std::int32_t utilization, std::int32_t processes,
                       std::int64_t used_gi) {
  return protocol::GpuUsage{index,    "NVIDIA A100-SXM4-80GB", 80 * kGi, used_gi * kGi, utilization,
                            processes};
}

// West's two 8-GPU nodes; node 0's GPUs busy at 90 % and 45 %, one idle, one
// at 0 % but holding a process; node 1's two GPUs idle, the third at 10 %.
protocol::UsageReport observed_report() {
  protocol::UsageReport report = usage_report("west", 2, 8);
  report.nodes[0].gpus = {gpu(0, 90, 1, 40), gpu(1, 45, 1, 20), gpu(2, 0, 0, 0), gpu(3, 0, 1, 2)};
  report.nodes[1].gpus = {gpu(0, 0, 0, 0), gpu(1, 0, 0, 0), gpu(2, 10, 1, 8)};
  report.scores = protocol::PlacementScores{12, 34, 56, 78, -90, 100, kStartMs + 60'000};
  return report;
}

void expect_observed_aggregates(const protocol::ClusterInfo& info) {
  EXPECT_EQ(info.gpus_reporting, 7);
  EXPECT_EQ(info.gpu_utilization_percent, 21) << "(90 + 45 + 10) / 7 = 20.7, rounded";
  EXPECT_EQ(info.gpu_memory_used_bytes, 70 * kGi);
  EXPECT_EQ(info.gpu_memory_total_bytes, 7 * 80 * kGi);
  EXPECT_EQ(info.idle_gpus, 3) << "0 % with a process is not idle";
  EXPECT_EQ(info.scores.cpu_node_available, 12);
  EXPECT_EQ(info.scores.cpu_cluster_available, 34);
  EXPECT_EQ(info.scores.mem_node_available, 56);
  EXPECT_EQ(info.scores.mem_cluster_available, 78);
  EXPECT_EQ(info.scores.gpu_node_available, -90);
  EXPECT_EQ(info.scores.gpu_cluster_available, 100);
  EXPECT_EQ(info.scores.valid_until_ms, kStartMs + 60'000);
}

// The report through the reconciler into the core, then its ClusterInfo: no CAF.
protocol::ClusterInfo info_after(const protocol::UsageReport& report) {
  hub::SchedulerCore core;
  hub::Reconciler reconciler(core);
  hub::Outbox out;
  reconciler.on_hello(protocol::Hello{report.cluster, {}, "test", {}, {}}, 0, out);
  reconciler.on_usage(report, 0, out);
  return cluster_info(core, *core.find_cluster(report.cluster), 0);
}

TEST(ClusterInfoView, AggregatesTheReportedGpusAndPassesTheScoresOn) {
  expect_observed_aggregates(info_after(observed_report()));
}

TEST(ClusterInfoView, NoReportingGpuLeavesEveryAggregateZero) {
  protocol::UsageReport report = usage_report("west", 2, 8);
  const protocol::ClusterInfo info = info_after(report);
  EXPECT_EQ(info.gpus_reporting, 0);
  EXPECT_EQ(info.gpu_utilization_percent, 0);
  EXPECT_EQ(info.gpu_memory_total_bytes, 0);
  EXPECT_EQ(info.idle_gpus, 0);
  EXPECT_EQ(info.scores.valid_until_ms, 0);
}

TEST(ClusterInfoView, HalfAPercentRoundsUp) {
  protocol::UsageReport report = usage_report("west", 1, 2);
  report.nodes[0].gpus = {gpu(0, 0, 1, 1), gpu(1, 1, 1, 1)};
  EXPECT_EQ(info_after(report).gpu_utilization_percent, 1);
}

TEST(ClusterInfoView, AnAgentsClusterHasNoFitNote) {
  EXPECT_EQ(info_after(usage_report("west", 2, 8)).fit_note, "");
}

// The hub keeps the note of the last report only: models declared later make
// the fit per node again, and the note goes.
TEST(ClusterInfoView, TheFitNoteOfTheLastReportIsKept) {
  hub::SchedulerCore core;
  hub::Reconciler reconciler(core);
  hub::Outbox out;
  reconciler.on_hello(protocol::Hello{"west", {}, "test", {}, {}}, 0, out);
  protocol::UsageReport summary = usage_report("west", 1, 16);
  summary.fit_note = "no node models: summary fit";
  reconciler.on_usage(summary, 0, out);
  const hub::ClusterIndex west = *core.find_cluster("west");
  EXPECT_EQ(cluster_info(core, west, 0).fit_note, "no node models: summary fit");
  reconciler.on_usage(usage_report("west", 2, 8), 0, out);
  EXPECT_EQ(cluster_info(core, west, 0).fit_note, "");
}

TEST_F(HubActorsTest, TheFitNoteComesBackInTheClusterListAndDescription) {
  from_agent(peer_of("west"), protocol::Hello{"west", {}, "test", {}, {}});
  protocol::UsageReport summary = usage_report("west", 1, 16);
  summary.fit_note = "resource models do not cover nvidia.com/gpu: summary fit";
  from_agent(peer_of("west"), summary);
  const auto listed = ask<protocol::ListReply>(protocol::ListRequest{"clusters"});
  ASSERT_EQ(listed.clusters.size(), 1u);
  EXPECT_EQ(listed.clusters[0].fit_note, summary.fit_note);
  const auto described = ask<protocol::DescribeReply>(protocol::DescribeRequest{"cluster", "west"});
  EXPECT_EQ(described.cluster.fit_note, summary.fit_note);
}

TEST_F(HubActorsTest, UsageReportsGpusAndScoresComeBackInTheClusterList) {
  from_agent(peer_of("west"), protocol::Hello{"west", {}, "test", {}, {}});
  from_agent(peer_of("west"), observed_report());
  const auto listed = ask<protocol::ListReply>(protocol::ListRequest{"clusters"});
  ASSERT_TRUE(listed.ok) << listed.error;
  ASSERT_EQ(listed.clusters.size(), 1u);
  expect_observed_aggregates(listed.clusters[0]);
  const auto described = ask<protocol::DescribeReply>(protocol::DescribeRequest{"cluster", "west"});
  ASSERT_TRUE(described.ok) << described.error;
  expect_observed_aggregates(described.cluster);
}

TEST_F(HubActorsTest, ANewUsageReportReplacesTheGpusAndScoresOfTheLast) {
  from_agent(peer_of("west"), protocol::Hello{"west", {}, "test", {}, {}});
  from_agent(peer_of("west"), observed_report());
  protocol::UsageReport later = observed_report();
  later.nodes[0].gpus.clear();  // node 0's node-role agent stopped reporting
  later.scores = {};
  from_agent(peer_of("west"), later);
  const auto clusters = ask<protocol::ListReply>(protocol::ListRequest{"clusters"}).clusters;
  ASSERT_EQ(clusters.size(), 1u);
  EXPECT_EQ(clusters[0].gpus_reporting, 3);
  EXPECT_EQ(clusters[0].idle_gpus, 2);
  EXPECT_EQ(clusters[0].gpu_utilization_percent, 3) << "10 / 3 = 3.3";
  EXPECT_EQ(clusters[0].scores.valid_until_ms, 0);
}

}  // namespace
}  // namespace gantry::actors
