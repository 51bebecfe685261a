#include "karmada/cluster_view.hpp"

#include <gtest/gtest.h>

#include "hub/field_error.hpp"

namespace gantry::karmada {
namespace {

using nlohmann::json;

constexpr std::int64_t kGi = 1024LL * 1024 * 1024 * 1000;  // milli-units

// A member cluster with Karmada's customized resource models (3 grades) and
// the modelings its cluster status controller counted.
json modeled_cluster() {
  return json::parse(R"({
    "apiVersion": "cluster.karmada.io/v1alpha1",
    "kind": "Cluster",
    "metadata": {"name": "east", "labels": {"region": "us-east", "nvidia.com/gpu.product": "A100"}},
    "spec": {
      "apiEndpoint": "https://east.example:6443",
      "syncMode": "Push",
      "resourceModels": [
        {"grade": 0, "ranges": [{"name": "cpu", "min": "0", "max": "4"},
                                {"name": "memory", "min": "0", "max": "16Gi"}]},
        {"grade": 1, "ranges": [{"name": "cpu", "min": "4", "max": "32"},
                                {"name": "memory", "min": "16Gi", "max": "128Gi"}]},
        {"grade": 2, "ranges": [{"name": "cpu", "min": "32", "max": "9223372036854775807"},
                                {"name": "memory", "min": "128Gi", "max": "9223372036854775807"}]}
      ]
    },
    "status": {
      "kubernetesVersion": "v1.29.2",
      "conditions": [
        {"type": "Ready", "status": "True", "reason": "ClusterReady",
         "message": "cluster is healthy and ready to accept workloads",
         "lastTransitionTime": "2024-05-01T10:00:00Z"}
      ],
      "nodeSummary": {"totalNum": 4, "readyNum": 4},
      "resourceSummary": {
        "allocatable": {"cpu": "96", "memory": "384Gi", "pods": "440"},
        "allocated": {"cpu": "30", "memory": "100Gi", "pods": "40"},
        "allocatableModelings": [
          {"grade": 0, "count": 1},
          {"grade": 1, "count": 2},
          {"grade": 2, "count": 1}
        ]
      }
    }
  })");
}

// A cluster without models: Karmada only sums its nodes.
json summary_cluster() {
  return json::parse(R"({
    "apiVersion": "cluster.karmada.io/v1alpha1",
    "kind": "Cluster",
    "metadata": {"name": "west"},
    "spec": {"syncMode": "Pull"},
    "status": {
      "conditions": [{"type": "Ready", "status": "True", "reason": "ClusterReady"}],
      "resourceSummary": {
        "allocatable": {"cpu": "64", "memory": "256Gi", "nvidia.com/gpu": "8"},
        "allocating": {"cpu": "2", "nvidia.com/gpu": "1"},
        "allocated": {"cpu": "10", "memory": "32Gi", "nvidia.com/gpu": "2"}
      }
    }
  })");
}

json not_ready_cluster() {
  return json::parse(R"({
    "apiVersion": "cluster.karmada.io/v1alpha1",
    "kind": "Cluster",
    "metadata": {"name": "south"},
    "status": {
      "conditions": [
        {"type": "Ready", "status": "False", "reason": "ClusterNotReachable",
         "message": "cluster is not reachable"}
      ]
    }
  })");
}

TEST(ClusterView, GradesBecomeOneNodePerCountedNode) {
  const ClusterView view = cluster_view(modeled_cluster());
  EXPECT_EQ(view.name, "east");
  EXPECT_TRUE(view.ready);
  ASSERT_EQ(view.nodes.size(), 4u);
  EXPECT_EQ(view.nodes[0].name, "east/grade0-0");
  EXPECT_EQ(view.nodes[1].name, "east/grade1-0");
  EXPECT_EQ(view.nodes[2].name, "east/grade1-1");
  EXPECT_EQ(view.nodes[3].name, "east/grade2-0");
  EXPECT_EQ(view.nodes[0].allocatable, (protocol::ResourceList{{"cpu", 0}, {"memory", 0}}));
  EXPECT_EQ(view.nodes[1].allocatable,
            (protocol::ResourceList{{"cpu", 4000}, {"memory", 16 * kGi}}));
  EXPECT_EQ(view.nodes[3].allocatable,
            (protocol::ResourceList{{"cpu", 32000}, {"memory", 128 * kGi}}));
  for (const protocol::NodeUsage& node : view.nodes)
    EXPECT_TRUE(node.allocated.empty()) << node.name;
}

TEST(ClusterView, LabelsAreTheClustersPlusTheKarmadaSource) {
  const ClusterView view = cluster_view(modeled_cluster());
  const protocol::Labels expected{
      {"region", "us-east"}, {"nvidia.com/gpu.product", "A100"}, {"gantry.io/source", "karmada"}};
  EXPECT_EQ(view.labels, expected);
  // Karmada knows no node labels: a nodeSelector is checked against the cluster's.
  EXPECT_EQ(view.nodes[1].labels, expected);
  EXPECT_EQ(view.nodes[1].gpu_model, "A100");
}

TEST(ClusterView, ZeroCountGradeGivesNoNodes) {
  json cluster = modeled_cluster();
  cluster["status"]["resourceSummary"]["allocatableModelings"] =
      json::array({{{"grade", 0}, {"count", 0}}, {{"grade", 2}, {"count", 2}}});
  const ClusterView view = cluster_view(cluster);
  ASSERT_EQ(view.nodes.size(), 2u);
  EXPECT_EQ(view.nodes[0].name, "east/grade2-0");
  EXPECT_EQ(view.nodes[1].name, "east/grade2-1");
}

TEST(ClusterView, SummaryOnlyClusterIsOneNodeWithAllocatingCounted) {
  const ClusterView view = cluster_view(summary_cluster());
  EXPECT_EQ(view.name, "west");
  EXPECT_TRUE(view.ready);
  EXPECT_EQ(view.labels, (protocol::Labels{{"gantry.io/source", "karmada"}}));
  ASSERT_EQ(view.nodes.size(), 1u);
  EXPECT_EQ(view.nodes[0].name, "west/summary");
  EXPECT_EQ(
      view.nodes[0].allocatable,
      (protocol::ResourceList{{"cpu", 64000}, {"memory", 256 * kGi}, {"nvidia.com/gpu", 8000}}));
  EXPECT_EQ(
      view.nodes[0].allocated,
      (protocol::ResourceList{{"cpu", 12000}, {"memory", 32 * kGi}, {"nvidia.com/gpu", 3000}}));
}

TEST(ClusterView, ModelsWithoutTheClustersGpusFallBackToTheSummary) {
  // Karmada's default models grade cpu and memory only; grade nodes would
  // hide the cluster's GPUs from Gantry.
  json cluster = modeled_cluster();
  cluster["status"]["resourceSummary"]["allocatable"]["nvidia.com/gpu"] = "16";
  const ClusterView view = cluster_view(cluster);
  ASSERT_EQ(view.nodes.size(), 1u);
  EXPECT_EQ(view.nodes[0].name, "east/summary");
  EXPECT_EQ(view.nodes[0].allocatable.at("nvidia.com/gpu"), 16000);
}

TEST(ClusterView, ModelsThatGradeGpusAreUsed) {
  json cluster = modeled_cluster();
  cluster["status"]["resourceSummary"]["allocatable"]["nvidia.com/gpu"] = "16";
  for (json& model : cluster["spec"]["resourceModels"])
    model["ranges"].push_back({{"name", "nvidia.com/gpu"},
                               {"min", std::to_string(model["grade"].get<int>() * 4)},
                               {"max", "100"}});
  const ClusterView view = cluster_view(cluster);
  ASSERT_EQ(view.nodes.size(), 4u);
  EXPECT_EQ(view.nodes[3].allocatable.at("nvidia.com/gpu"), 8000);
}

TEST(ClusterView, GradeNodesNeedNoFitNote) {
  EXPECT_EQ(cluster_view(modeled_cluster()).fit_note, "");
}

TEST(ClusterView, SummaryWithoutModelsSaysNoNodeModels) {
  EXPECT_EQ(cluster_view(summary_cluster()).fit_note, "no node models: summary fit");
}

TEST(ClusterView, ModelsWithoutModelingsSayNoNodeModels) {
  // Models declared, but the cluster status controller has counted no node yet.
  json cluster = modeled_cluster();
  cluster["status"]["resourceSummary"].erase("allocatableModelings");
  const ClusterView view = cluster_view(cluster);
  ASSERT_EQ(view.nodes.size(), 1u);
  EXPECT_EQ(view.nodes[0].name, "east/summary");
  EXPECT_EQ(view.fit_note, "no node models: summary fit");
}

TEST(ClusterView, ModelsLeavingOutExtendedResourcesNameThemInTheFitNote) {
  json cluster = modeled_cluster();
  cluster["status"]["resourceSummary"]["allocatable"]["nvidia.com/gpu"] = "16";
  cluster["status"]["resourceSummary"]["allocatable"]["example.com/fpga"] = "2";
  cluster["status"]["resourceSummary"]["allocatable"]["example.com/none"] = "0";
  EXPECT_EQ(cluster_view(cluster).fit_note,
            "resource models do not cover example.com/fpga, nvidia.com/gpu: summary fit");
}

TEST(ClusterView, OneGradeWithoutTheGpusIsEnoughToFallBack) {
  json cluster = modeled_cluster();
  cluster["status"]["resourceSummary"]["allocatable"]["nvidia.com/gpu"] = "16";
  for (json& model : cluster["spec"]["resourceModels"])
    if (model["grade"] != 1)
      model["ranges"].push_back({{"name", "nvidia.com/gpu"}, {"min", "0"}, {"max", "100"}});
  const ClusterView view = cluster_view(cluster);
  ASSERT_EQ(view.nodes.size(), 1u);
  EXPECT_EQ(view.fit_note, "resource models do not cover nvidia.com/gpu: summary fit");
}

TEST(ClusterView, ModelsThatGradeGpusNeedNoFitNote) {
  json cluster = modeled_cluster();
  cluster["status"]["resourceSummary"]["allocatable"]["nvidia.com/gpu"] = "16";
  for (json& model : cluster["spec"]["resourceModels"])
    model["ranges"].push_back({{"name", "nvidia.com/gpu"}, {"min", "0"}, {"max", "100"}});
  const ClusterView view = cluster_view(cluster);
  EXPECT_EQ(view.nodes.size(), 4u);
  EXPECT_EQ(view.fit_note, "");
}

TEST(ClusterView, NotReadyClusterWithoutSummaryHasNoNodes) {
  const ClusterView view = cluster_view(not_ready_cluster());
  EXPECT_EQ(view.name, "south");
  EXPECT_FALSE(view.ready);
  EXPECT_TRUE(view.nodes.empty());
  EXPECT_EQ(view.fit_note, "") << "no nodes: no fit to qualify";
}

TEST(ClusterView, NoConditionsIsNotReady) {
  json cluster = summary_cluster();
  cluster["status"].erase("conditions");
  EXPECT_FALSE(cluster_view(cluster).ready);
}

TEST(ClusterView, BadQuantityNamesTheField) {
  json cluster = summary_cluster();
  cluster["status"]["resourceSummary"]["allocated"]["memory"] = "32 gigs";
  try {
    cluster_view(cluster);
    FAIL() << "expected FieldError";
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), "status.resourceSummary.allocated.memory");
    EXPECT_EQ(e.value(), "32 gigs");
  }
}

TEST(ClusterView, WrongTypeNamesTheField) {
  json cluster = modeled_cluster();
  cluster["status"]["resourceSummary"]["allocatableModelings"][1]["count"] = "2";
  try {
    cluster_view(cluster);
    FAIL() << "expected FieldError";
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), "status.resourceSummary.allocatableModelings[1].count");
    EXPECT_EQ(e.value(), "2");
  }
  cluster = modeled_cluster();
  cluster["metadata"]["labels"]["region"] = 5;
  try {
    cluster_view(cluster);
    FAIL() << "expected FieldError";
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), "metadata.labels.region");
  }
}

TEST(ClusterView, ModelingOfUnknownGradeNamesTheField) {
  json cluster = modeled_cluster();
  cluster["status"]["resourceSummary"]["allocatableModelings"][2]["grade"] = 7;
  try {
    cluster_view(cluster);
    FAIL() << "expected FieldError";
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), "status.resourceSummary.allocatableModelings[2].grade");
    EXPECT_EQ(e.value(), "7");
  }
}

}  // namespace
}  // namespace gantry::karmada
