// What the agents observe of a cluster (NVML's GPU usage, OCM's scores) as
// get clusters -o wide, -o json and describe cluster show it.
#include <gtest/gtest.h>

#include "console/cluster_views.hpp"
#include "console/describe_views.hpp"

namespace gantry::console {
namespace {

constexpr std::int64_t kNow = 1714550400000;  // 2024-05-01T08:00:00Z
constexpr std::int64_t kGi = 1024LL * 1024 * 1024;

// 32 A100s reporting, 20 of them idle, and the agent's OCM scores.
protocol::ClusterInfo observed_east() {
  protocol::ClusterInfo cluster;
  cluster.name = "east";
  cluster.ready = true;
  cluster.nodes = 4;
  cluster.capacity = {{"cpu", 256000}, {"memory", 2199023255552000}, {"nvidia.com/gpu", 32000}};
  cluster.allocated = {{"cpu", 12500}, {"memory", 137438953472000}, {"nvidia.com/gpu", 8000}};
  cluster.gpus_reporting = 32;
  cluster.gpu_utilization_percent = 37;
  cluster.gpu_memory_used_bytes = 384 * kGi;
  cluster.gpu_memory_total_bytes = 2560 * kGi;
  cluster.idle_gpus = 20;
  cluster.scores = {40, 100, 25, 100, -20, 60, kNow + 300'000};
  return cluster;
}

// Its agent sent neither GPU usage nor scores.
protocol::ClusterInfo silent_west() {
  protocol::ClusterInfo cluster;
  cluster.name = "west";
  return cluster;
}

TEST(ClusterWideViews, WideTableAddsGpuUsageAndOcmScoresWithDashesForWhatIsNotReported) {
  EXPECT_EQ(render_clusters_wide_table({observed_east(), silent_west()}),
            "NAME   STATUS     NODES   GPU(alloc/cap)   CPU        MEMORY      GPU-UTIL   "
            "GPU-MEM       IDLE-GPUS   CPU-NODE   CPU-CLUS   MEM-NODE   MEM-CLUS   GPU-NODE   "
            "GPU-CLUS   FIT\n"
            "east   Ready      4       8/32             12.5/256   128Gi/2Ti   37%        "
            "384Gi/2.5Ti   20          40         100        25         100        -20        "
            "60         per-node\n"
            "west   NotReady   0       0/0              0/0        0/0         -          "
            "-             -           -          -          -          -          -          "
            "-          per-node\n");
}

// Last, so that the note's spaces move no other column.
TEST(ClusterWideViews, FitColumnSaysWhyAClusterHasOnlyASummaryFit) {
  protocol::ClusterInfo karmada = silent_west();
  karmada.ready = true;
  karmada.nodes = 1;
  karmada.fit_note = "no node models: summary fit";
  const std::string table = render_clusters_wide_table({observed_east(), karmada});
  EXPECT_NE(table.find("GPU-CLUS   FIT\n"), std::string::npos) << table;
  EXPECT_NE(table.find("60         per-node\n"), std::string::npos) << table;
  EXPECT_NE(table.find("west   Ready,SummaryFit   1       0/0"), std::string::npos) << table;
  EXPECT_NE(table.find("-          no node models: summary fit\n"), std::string::npos) << table;
}

TEST(ClusterWideViews, PlainTableStaysWithoutTheObservedColumns) {
  EXPECT_EQ(render_clusters_table({observed_east()}),
            "NAME   STATUS   NODES   GPU(alloc/cap)   CPU        MEMORY\n"
            "east   Ready    4       8/32             12.5/256   128Gi/2Ti\n");
}

TEST(ClusterWideViews, ScoresAreShownOnlyWhenTheAgentSentThem) {
  protocol::ClusterInfo cluster = observed_east();
  cluster.scores.valid_until_ms = 0;  // the scores' default -100s are not scores
  const std::string table = render_clusters_wide_table({cluster});
  EXPECT_EQ(table.find("-100"), std::string::npos) << table;
  EXPECT_NE(table.find("20          -          -          -          -          -          -          "
                       "per-node\n"),
            std::string::npos)
      << table;
}

TEST(ClusterWideViews, JsonHasTheGpuKeysAndOcmScoresUnderOcmNames) {
  const std::string json = render_clusters_json({observed_east()});
  EXPECT_NE(json.find("    \"lastSeen\": null,\n"
                      "    \"gpuUtilization\": 37,\n"
                      "    \"gpuMemoryUsed\": 412316860416,\n"
                      "    \"gpuMemoryTotal\": 2748779069440,\n"
                      "    \"idleGpus\": 20,\n"
                      "    \"gpusReporting\": 32,\n"
                      "    \"ocmScores\": {\n"
                      "      \"cpuNodeAvailable\": 40,\n"
                      "      \"cpuClusterAvailable\": 100,\n"
                      "      \"memNodeAvailable\": 25,\n"
                      "      \"memClusterAvailable\": 100,\n"
                      "      \"gpuNodeAvailable\": -20,\n"
                      "      \"gpuClusterAvailable\": 60,\n"
                      "      \"validUntil\": \"2024-05-01T08:05:00.000Z\"\n"
                      "    }\n"),
            std::string::npos)
      << json;
}

TEST(ClusterWideViews, JsonOfAClusterWithoutReportsHasNullUtilizationAndScores) {
  const std::string json = render_clusters_json({silent_west()});
  EXPECT_NE(json.find("    \"gpuUtilization\": null,\n"
                      "    \"gpuMemoryUsed\": 0,\n"
                      "    \"gpuMemoryTotal\": 0,\n"
                      "    \"idleGpus\": 0,\n"
                      "    \"gpusReporting\": 0,\n"
                      "    \"ocmScores\": null\n"),
            std::string::npos)
      << json;
}

TEST(ClusterWideViews, DescribeShowsGpuUsageAndOcmScoresAfterTheResources) {
  const std::string text = render_cluster_description(observed_east(), kNow);
  const std::size_t gpus = text.find(
      "GPUs:\n"
      "  REPORTING   UTILIZATION   MEMORY        IDLE\n"
      "  32          37%           384Gi/2.5Ti   20\n");
  ASSERT_NE(gpus, std::string::npos) << text;
  EXPECT_LT(text.find("Resources:\n"), gpus);
  const std::size_t scores = text.find(
      "OCM Scores:\n"
      "  CPU-NODE   CPU-CLUS   MEM-NODE   MEM-CLUS   GPU-NODE   GPU-CLUS   VALID-UNTIL\n"
      "  40         100        25         100        -20        60         "
      "2024-05-01T08:05:00.000Z\n");
  ASSERT_NE(scores, std::string::npos) << text;
  EXPECT_LT(gpus, scores);
}

TEST(ClusterWideViews, DescribeSaysHowNodeFitIsKnownOnlyWhenItIsASummary) {
  protocol::ClusterInfo karmada = silent_west();
  karmada.fit_note = "resource models do not cover nvidia.com/gpu: summary fit";
  EXPECT_NE(render_cluster_description(karmada, kNow)
                .find("Nodes:      0\n"
                      "Node Fit:   resource models do not cover nvidia.com/gpu: summary fit\n"
                      "Last Seen:  "),
            std::string::npos);
  EXPECT_EQ(render_cluster_description(observed_east(), kNow).find("Node Fit"), std::string::npos);
}

TEST(ClusterWideViews, DescribeSaysNoneForWhatTheAgentDidNotReport) {
  const std::string text = render_cluster_description(silent_west(), kNow);
  EXPECT_NE(text.find("GPUs:\n  <none>\nOCM Scores:\n  <none>\n"), std::string::npos) << text;
}

TEST(ApproximateBytes, LargestBinaryUnitWithOneDecimalBelowTen) {
  EXPECT_EQ(format_approximate_bytes(0), "0");
  EXPECT_EQ(format_approximate_bytes(512), "512");
  EXPECT_EQ(format_approximate_bytes(1023), "1023");
  EXPECT_EQ(format_approximate_bytes(1024), "1Ki");
  EXPECT_EQ(format_approximate_bytes(12 * kGi), "12Gi");
  EXPECT_EQ(format_approximate_bytes(80 * kGi), "80Gi");
  EXPECT_EQ(format_approximate_bytes(3 * kGi / 2), "1.5Gi");
  EXPECT_EQ(format_approximate_bytes(12 * kGi + 300 * 1024 * 1024), "12Gi");  // 12.29Gi
  EXPECT_EQ(format_approximate_bytes(2560 * kGi), "2.5Ti");
  EXPECT_EQ(format_approximate_bytes(1024 * kGi - 1), "1Ti") << "never 1024Gi";
  EXPECT_EQ(format_approximate_bytes(-2 * kGi), "-2Gi");
}

}  // namespace
}  // namespace gantry::console
