// usable_nodes / pod_requests on hand-built core/v1 Node and Pod JSON.
#include "agents/kube_nodes.hpp"

#include <gtest/gtest.h>

#include "hub/field_error.hpp"

namespace gantry::agents {
namespace {

using nlohmann::json;
using protocol::NodeUsage;
using protocol::ResourceList;

constexpr std::int64_t kGi = 1024LL * 1024 * 1024 * 1000;  // milli-bytes

json ready_node(const std::string& name,
                json allocatable = {
                    {"cpu", "8"}, {"memory", "32Gi"}, {"nvidia.com/gpu", "4"}, {"pods", "110"}}) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}},
          {"spec", json::object()},
          {"status",
           {{"allocatable", std::move(allocatable)},
            {"conditions", json::array({{{"type", "MemoryPressure"}, {"status", "False"}},
                                        {{"type", "Ready"}, {"status", "True"}}})}}}};
}

json container(const std::string& name, json requests) {
  return {{"name", name}, {"image", "busybox"}, {"resources", {{"requests", std::move(requests)}}}};
}

json pod(const std::string& name, const std::string& node, json containers,
         const std::string& phase = "Running") {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "ml"}}},
          {"spec", {{"nodeName", node}, {"containers", std::move(containers)}}},
          {"status", {{"phase", phase}}}};
}

json one_container_pod(const std::string& name, const std::string& node, json requests,
                       const std::string& phase = "Running") {
  return pod(name, node, json::array({container("main", std::move(requests))}), phase);
}

bool nothing_is_own(const json&) {
  return false;
}

std::vector<NodeUsage> usable(const std::vector<json>& nodes, const std::vector<json>& pods) {
  return usable_nodes(nodes, pods, nothing_is_own);
}

std::vector<std::string> names_of(const std::vector<NodeUsage>& nodes) {
  std::vector<std::string> names;
  for (const NodeUsage& node : nodes) names.push_back(node.name);
  return names;
}

TEST(KubeNodesTest, AllocatableLessTheRequestsOfPodsBoundToTheNode) {
  const std::vector<NodeUsage> nodes =
      usable({ready_node("a"), ready_node("b")},
             {one_container_pod("on-a", "a",
                                {{"cpu", "1500m"}, {"memory", "4Gi"}, {"nvidia.com/gpu", "1"}}),
              one_container_pod("on-b", "b", {{"cpu", "2"}}),
              one_container_pod("unbound", "", {{"cpu", "4"}}, "Pending")});

  ASSERT_EQ(names_of(nodes), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(
      nodes[0].allocatable,
      (ResourceList{
          {"cpu", 6'500}, {"memory", 28 * kGi}, {"nvidia.com/gpu", 3'000}, {"pods", 109'000}}));
  EXPECT_TRUE(nodes[0].allocated.empty());
  EXPECT_EQ(nodes[1].allocatable.at("cpu"), 6'000);
  EXPECT_EQ(nodes[1].allocatable.at("nvidia.com/gpu"), 4'000);
}

TEST(KubeNodesTest, TerminatedPodsHoldNothing) {
  const std::vector<NodeUsage> nodes =
      usable({ready_node("a")}, {one_container_pod("done", "a", {{"cpu", "1"}}, "Succeeded"),
                                 one_container_pod("crashed", "a", {{"cpu", "1"}}, "Failed"),
                                 one_container_pod("starting", "a", {{"cpu", "1"}}, "Pending"),
                                 one_container_pod("lost", "a", {{"cpu", "1"}}, "Unknown")});
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].allocatable.at("cpu"), 6'000);  // Pending and Unknown still hold theirs
  EXPECT_EQ(nodes[0].allocatable.at("pods"), 108'000);
}

TEST(KubeNodesTest, InitContainersCountAtTheirPeakPerResource) {
  json p = pod("p", "a",
               json::array({container("main", {{"cpu", "1"}, {"memory", "2Gi"}}),
                            container("logger", {{"cpu", "500m"}, {"memory", "1Gi"}})}));
  p["spec"]["initContainers"] =
      json::array({container("fetch", {{"cpu", "3"}, {"memory", "1Gi"}}),
                   container("migrate", {{"cpu", "2"}, {"nvidia.com/gpu", "1"}})});

  // cpu: max(1.5, 3); memory: max(3Gi, 1Gi); gpu: only an init container asks.
  EXPECT_EQ(pod_requests(p, "Pod ml/p"),
            (ResourceList{{"cpu", 3'000}, {"memory", 3 * kGi}, {"nvidia.com/gpu", 1'000}}));
}

TEST(KubeNodesTest, SidecarsRunBesideTheContainersAndTheInitContainersAfterThem) {
  json p = pod("p", "a", json::array({container("main", {{"cpu", "1"}})}));
  json sidecar = container("proxy", {{"cpu", "500m"}});
  sidecar["restartPolicy"] = "Always";
  p["spec"]["initContainers"] = json::array(
      {container("before", {{"cpu", "2200m"}}), sidecar, container("after", {{"cpu", "2"}})});

  // Running: main + proxy = 1.5. Init phase peak: max(before 2.2, proxy 0.5,
  // after 2 + proxy 0.5 = 2.5) = 2.5.
  EXPECT_EQ(pod_requests(p, "Pod ml/p").at("cpu"), 2'500);
}

TEST(KubeNodesTest, OverheadIsAddedToThePodsRequests) {
  json p = one_container_pod("p", "a", {{"cpu", "1"}, {"memory", "1Gi"}});
  p["spec"]["overhead"] = {{"cpu", "250m"}, {"memory", "1Gi"}};
  const std::vector<NodeUsage> nodes = usable({ready_node("a")}, {p});
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].allocatable.at("cpu"), 6'750);
  EXPECT_EQ(nodes[0].allocatable.at("memory"), 30 * kGi);
}

TEST(KubeNodesTest, PodLevelRequestsReplaceTheContainersCpuAndMemory) {
  json p = one_container_pod("p", "a", {{"cpu", "1"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "2"}});
  p["spec"]["resources"] = {{"requests", {{"cpu", "4"}}}};
  EXPECT_EQ(pod_requests(p, "Pod ml/p"),
            (ResourceList{{"cpu", 4'000}, {"memory", kGi}, {"nvidia.com/gpu", 2'000}}));
}

TEST(KubeNodesTest, CordonedAndNotReadyNodesAreLeftOut) {
  json cordoned = ready_node("cordoned");
  cordoned["spec"]["unschedulable"] = true;
  json not_ready = ready_node("not-ready");
  not_ready["status"]["conditions"][1]["status"] = "False";
  json unknown = ready_node("unknown");
  unknown["status"]["conditions"][1]["status"] = "Unknown";
  json unreported = ready_node("unreported");
  unreported["status"].erase("conditions");

  const std::vector<NodeUsage> nodes =
      usable({cordoned, not_ready, ready_node("ready"), unknown, unreported}, {});
  EXPECT_EQ(names_of(nodes), (std::vector<std::string>{"ready"}));
}

TEST(KubeNodesTest, TheGpuProductLabelGivesTheModel) {
  json a100 = ready_node("a100");
  a100["metadata"]["labels"]["nvidia.com/gpu.product"] = "NVIDIA-A100-SXM4-80GB";
  const std::vector<NodeUsage> nodes = usable({a100, ready_node("cpu-only")}, {});
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].gpu_model, "NVIDIA-A100-SXM4-80GB");
  EXPECT_EQ(nodes[0].labels,
            (protocol::Labels{{"kubernetes.io/hostname", "a100"},
                              {"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"}}));
  EXPECT_EQ(nodes[1].gpu_model, "");
}

TEST(KubeNodesTest, NoScheduleAndNoExecuteTaintsAreReadPreferNoScheduleIsLeftOut) {
  json gpu = ready_node("gpu");
  gpu["spec"]["taints"] =
      json::array({{{"key", "nvidia.com/gpu"}, {"value", "present"}, {"effect", "NoSchedule"}},
                   {{"key", "soft"}, {"effect", "PreferNoSchedule"}},
                   {{"key", "node.kubernetes.io/out-of-service"},
                    {"effect", "NoExecute"},
                    {"timeAdded", "2026-11-27T00:00:00Z"}}});
  const std::vector<NodeUsage> nodes = usable({gpu, ready_node("plain")}, {});
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].taints,
            (std::vector<protocol::Taint>{{"nvidia.com/gpu", "present", "NoSchedule"},
                                          {"node.kubernetes.io/out-of-service", "", "NoExecute"}}));
  EXPECT_TRUE(nodes[1].taints.empty());
}

TEST(KubeNodesTest, ABadTaintNamesItsPath) {
  json gpu = ready_node("gpu");
  gpu["spec"]["taints"] = json::array({{{"key", 7}, {"effect", "NoSchedule"}}});
  try {
    usable({gpu}, {});
    FAIL() << "no error";
  } catch (const hub::FieldError& error) {
    EXPECT_EQ(error.field(), "Node gpu spec.taints[0].key");
  }
}

TEST(KubeNodesTest, GantrysOwnPodsAreNotSubtracted) {
  json own = one_container_pod("replica-0", "a", {{"cpu", "4"}, {"nvidia.com/gpu", "4"}});
  own["metadata"]["labels"] = {{"app.kubernetes.io/managed-by", "gantry"}};
  const json other = one_container_pod("other", "a", {{"cpu", "1"}});
  const auto is_own = [](const json& p) {
    return p["metadata"]
               .value("labels", json::object())
               .value("app.kubernetes.io/managed-by", "") == "gantry";
  };

  const std::vector<NodeUsage> nodes = usable_nodes({ready_node("a")}, {own, other}, is_own);
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].allocatable.at("cpu"), 7'000);
  EXPECT_EQ(nodes[0].allocatable.at("nvidia.com/gpu"), 4'000);
}

TEST(KubeNodesTest, ZeroResourcesAreLeftOutAndOverRequestsClampAtZero) {
  const std::vector<NodeUsage> nodes =
      usable({ready_node("a", {{"cpu", "2"}, {"hugepages-1Gi", "0"}})},
             {one_container_pod("big", "a", {{"cpu", "3"}})});
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].allocatable, (ResourceList{{"cpu", 0}}));
}

TEST(KubeNodesTest, ABadQuantityInAPodNamesItsPath) {
  const json p =
      pod("train-0", "a",
          json::array({container("main", {{"cpu", "1"}}), container("side", {{"cpu", "two"}})}));
  try {
    usable({ready_node("a")}, {p});
    FAIL() << "no error";
  } catch (const hub::FieldError& error) {
    EXPECT_EQ(error.field(), "Pod ml/train-0 spec.containers[1].resources.requests[cpu]");
    EXPECT_EQ(error.value(), "two");
  }
}

TEST(KubeNodesTest, ABadQuantityInANodeNamesItsPath) {
  try {
    usable({ready_node("a", {{"cpu", "8"}, {"nvidia.com/gpu", "4x"}})}, {});
    FAIL() << "no error";
  } catch (const hub::FieldError& error) {
    EXPECT_EQ(error.field(), "Node a status.allocatable[nvidia.com/gpu]");
    EXPECT_EQ(error.value(), "4x");
  }
}

}  // namespace
}  // namespace gantry::agents
