// OCM AddOnPlacementScore: the six scores worked out by hand, and the object
// written to the fixture API server with OCM's exact field names.
#include "agents/ocm_writer.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"
#include "tests/kube/fixture_server.hpp"

namespace gantry::agents {
namespace {

using json = nlohmann::json;

constexpr std::int64_t kGiB = 1024LL * 1024 * 1024 * 1000;  // milli-bytes
constexpr std::int64_t kCores = 1000;                       // milli-cores
constexpr std::int64_t kGpus = 1000;                        // milli-GPUs
constexpr std::int64_t kT0Ms = 1'714'550'400'000;           // 2024-05-01T08:00:00Z

protocol::NodeUsage node(std::string name, protocol::ResourceList allocatable,
                         protocol::ResourceList allocated = {}) {
  protocol::NodeUsage usage;
  usage.name = std::move(name);
  usage.allocatable = std::move(allocatable);
  usage.allocated = std::move(allocated);
  return usage;
}

// Free: a 64 cores / 256 GiB / 8 GPUs, b 32 / 128 GiB / 4, c 16 / 64 GiB / 0.
std::vector<protocol::NodeUsage> three_nodes() {
  return {node("a", {{"cpu", 96 * kCores}, {"memory", 384 * kGiB}, {"nvidia.com/gpu", 8 * kGpus}},
               {{"cpu", 32 * kCores}, {"memory", 128 * kGiB}}),
          node("b", {{"cpu", 64 * kCores}, {"memory", 256 * kGiB}, {"nvidia.com/gpu", 8 * kGpus}},
               {{"cpu", 32 * kCores}, {"memory", 128 * kGiB}, {"nvidia.com/gpu", 4 * kGpus}}),
          node("c", {{"cpu", 16 * kCores}, {"memory", 64 * kGiB}})};
}

// OCM's normaliser over the addon's ranges (0..100 cores, 0..1 TiB in MiB,
// 0..20 GPUs): above max 100, at or below min -100, else
// 200 * value / max - 100 truncated toward zero.
TEST(PlacementScores, ThreeNodesWorkedOutByHand) {
  const protocol::PlacementScores scores = placement_scores(three_nodes(), kT0Ms);
  EXPECT_EQ(scores.cpu_node_available, 28);      // 64 cores: 128 - 100
  EXPECT_EQ(scores.cpu_cluster_available, 100);  // 112 cores > 100
  EXPECT_EQ(scores.mem_node_available, -50);     // 262144 MiB: 50 - 100
  EXPECT_EQ(scores.mem_cluster_available, -12);  // 458752 MiB: 87.5 - 100 = -12.5
  EXPECT_EQ(scores.gpu_node_available, -20);     // 8 GPUs: 80 - 100
  EXPECT_EQ(scores.gpu_cluster_available, 20);   // 12 GPUs: 120 - 100
  EXPECT_EQ(scores.valid_until_ms, kT0Ms + 60'000);
}

TEST(PlacementScores, NodeScopeTakesEachResourcesOwnBestNode) {
  const std::vector<protocol::NodeUsage> nodes = {
      node("cpu-rich", {{"cpu", 50 * kCores}}),
      node("gpu-rich", {{"cpu", 10 * kCores}, {"nvidia.com/gpu", 10 * kGpus}})};
  const protocol::PlacementScores scores = placement_scores(nodes, kT0Ms, 5'000);
  EXPECT_EQ(scores.cpu_node_available, 0);      // 50 cores: 100 - 100
  EXPECT_EQ(scores.gpu_node_available, 0);      // 10 GPUs: 100 - 100
  EXPECT_EQ(scores.cpu_cluster_available, 20);  // 60 cores: 120 - 100
  EXPECT_EQ(scores.gpu_cluster_available, 0);   // 10 GPUs
  EXPECT_EQ(scores.mem_node_available, -100);   // no memory at all
  EXPECT_EQ(scores.mem_cluster_available, -100);
  EXPECT_EQ(scores.valid_until_ms, kT0Ms + 5'000);
}

TEST(PlacementScores, NoNodesScoreTheMinimum) {
  const protocol::PlacementScores scores = placement_scores({}, kT0Ms);
  for (std::int32_t score :
       {scores.cpu_node_available, scores.cpu_cluster_available, scores.mem_node_available,
        scores.mem_cluster_available, scores.gpu_node_available, scores.gpu_cluster_available}) {
    EXPECT_EQ(score, -100);
  }
}

TEST(Rfc3339Seconds, RoundsDownToWholeSecondsInUtc) {
  EXPECT_EQ(format_rfc3339_seconds(kT0Ms), "2024-05-01T08:00:00Z");
  EXPECT_EQ(format_rfc3339_seconds(kT0Ms + 59'999), "2024-05-01T08:00:59Z");
}

class OcmScoreWriting : public ::testing::Test {
 protected:
  static constexpr const char* kPath =
      "/apis/cluster.open-cluster-management.io/v1alpha1/namespaces/cluster1/addonplacementscores/"
      "resource-usage-score";

  json stored() {
    const kube::Response got = client_.get(kPath);
    EXPECT_EQ(got.status, 200) << got.body;
    return json::parse(got.body);
  }
  // "METHOD path" of each API request since the last call.
  std::vector<std::string> requests() {
    std::vector<std::string> lines;
    for (const json& entry : json::parse(client_.get("/fixture/requests").body)) {
      const std::string path = entry["path"];
      if (path.rfind("/fixture/", 0) == 0) continue;
      lines.push_back(entry["method"].get<std::string>() + " " + path);
    }
    client_.post("/fixture/requests/clear", "");
    return lines;
  }

  support::TempDir dir_{"ocm-writer"};
  kube::testing::FixtureServer fixture_{{}, dir_.path() / "fixture.log"};
  kube::Client client_{kube::ClusterAccess{.server = fixture_.url()}};
  OcmScoreWriter writer_{client_, "cluster1"};
};

TEST_F(OcmScoreWriting, CreatesTheObjectWithOcmsFieldNames) {
  writer_.write(placement_scores(three_nodes(), kT0Ms + 999));
  // Created, then its status set through the subresource (a real API server
  // drops the status of a create).
  const std::string collection =
      "/apis/cluster.open-cluster-management.io/v1alpha1/namespaces/cluster1/addonplacementscores";
  EXPECT_EQ(requests(), (std::vector<std::string>{"GET " + std::string(kPath), "POST " + collection,
                                                  "PUT " + std::string(kPath) + "/status"}));

  const json object = stored();
  EXPECT_EQ(object["apiVersion"], "cluster.open-cluster-management.io/v1alpha1");
  EXPECT_EQ(object["kind"], "AddOnPlacementScore");
  EXPECT_EQ(object["metadata"]["name"], "resource-usage-score");
  EXPECT_EQ(object["metadata"]["namespace"], "cluster1");
  const json& status = object["status"];
  EXPECT_EQ(status["scores"], json::parse(R"([
      {"name": "cpuNodeAvailable", "value": 28}, {"name": "cpuClusterAvailable", "value": 100},
      {"name": "memNodeAvailable", "value": -50}, {"name": "memClusterAvailable", "value": -12},
      {"name": "gpuNodeAvailable", "value": -20}, {"name": "gpuClusterAvailable", "value": 20}])"));
  EXPECT_EQ(status["validUntil"], "2024-05-01T08:01:00Z");
  ASSERT_EQ(status["conditions"].size(), 1u);
  const json& condition = status["conditions"][0];
  EXPECT_EQ(condition["type"], "AddOnPlacementScoreUpdated");
  EXPECT_EQ(condition["status"], "True");
  EXPECT_EQ(condition["reason"], "AddOnPlacementScoreUpdated");
  EXPECT_EQ(condition["message"], "AddOnPlacementScore updated successfully");
  EXPECT_EQ(condition["lastTransitionTime"].get<std::string>().size(),
            std::string("2024-05-01T08:00:00Z").size());
}

TEST_F(OcmScoreWriting, UpdatesTheStatusOfTheExistingObject) {
  writer_.write(placement_scores(three_nodes(), kT0Ms));
  const json first = stored();
  requests();

  writer_.write(placement_scores({}, kT0Ms + 30'000));
  EXPECT_EQ(requests(), (std::vector<std::string>{"GET " + std::string(kPath),
                                                  "PUT " + std::string(kPath) + "/status"}));
  const json second = stored();
  EXPECT_EQ(second["metadata"]["uid"], first["metadata"]["uid"]);  // the same object
  EXPECT_EQ(second["status"]["validUntil"], "2024-05-01T08:01:30Z");
  for (const json& item : second["status"]["scores"]) EXPECT_EQ(item["value"], -100) << item;
  EXPECT_EQ(second["status"]["scores"].size(), 6u);
}

// metav1.Condition semantics: lastTransitionTime moves only when the status does.
TEST_F(OcmScoreWriting, TheConditionKeepsItsTransitionTimeWhileItStaysTrue) {
  const auto seed = [&](const char* condition_status) {
    client_.remove(kPath);
    const json object = {
        {"apiVersion", "cluster.open-cluster-management.io/v1alpha1"},
        {"kind", "AddOnPlacementScore"},
        {"metadata", {{"name", "resource-usage-score"}}},
        {"status",
         {{"conditions", json::array({{{"type", "AddOnPlacementScoreUpdated"},
                                       {"status", condition_status},
                                       {"reason", "Seeded"},
                                       {"message", ""},
                                       {"lastTransitionTime", "2020-01-01T00:00:00Z"}}})}}}};
    ASSERT_EQ(client_
                  .post("/apis/cluster.open-cluster-management.io/v1alpha1/namespaces/cluster1/"
                        "addonplacementscores",
                        object.dump())
                  .status,
              201);
  };
  seed("True");
  writer_.write(placement_scores({}, kT0Ms));
  EXPECT_EQ(stored()["status"]["conditions"][0]["lastTransitionTime"], "2020-01-01T00:00:00Z");

  seed("False");
  writer_.write(placement_scores({}, kT0Ms));
  const json condition = stored()["status"]["conditions"][0];
  EXPECT_EQ(condition["status"], "True");
  EXPECT_NE(condition["lastTransitionTime"], "2020-01-01T00:00:00Z");
}

TEST_F(OcmScoreWriting, AConflictIsRetriedFromAFreshRead) {
  writer_.write(placement_scores(three_nodes(), kT0Ms));
  ASSERT_EQ(client_.post("/fixture/conflict-next-patches?count=1", "").status, 200);
  writer_.write(placement_scores({}, kT0Ms + 30'000));
  EXPECT_EQ(stored()["status"]["validUntil"], "2024-05-01T08:01:30Z");
}

TEST_F(OcmScoreWriting, ConflictsOnBothTriesThrowNamingTheObject) {
  writer_.write(placement_scores(three_nodes(), kT0Ms));
  ASSERT_EQ(client_.post("/fixture/conflict-next-patches?count=2", "").status, 200);
  try {
    writer_.write(placement_scores({}, kT0Ms + 30'000));
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("cluster1/resource-usage-score"), std::string::npos)
        << error.what();
  }
  EXPECT_EQ(stored()["status"]["validUntil"], "2024-05-01T08:01:00Z");  // unchanged
}

TEST_F(OcmScoreWriting, ScoresWithoutAValidityAreRefused) {
  protocol::PlacementScores never_computed;  // valid_until_ms 0
  EXPECT_THROW(writer_.write(never_computed), std::invalid_argument);
  EXPECT_EQ(client_.get(kPath).status, 404);
}

}  // namespace
}  // namespace gantry::agents
