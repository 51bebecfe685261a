// KubeClusterView against the fixture API server: the initial lists, watch
// events, and a re-list after compaction.
#include "agents/kube_cluster_view.hpp"

#include <gtest/gtest.h>
#include <poll.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <optional>

#include "support/temp_dir.hpp"
#include "tests/kube/fixture_server.hpp"

namespace gantry::agents {
namespace {

using nlohmann::json;
using protocol::NodeUsage;

constexpr auto kAwaitGuard = std::chrono::seconds(30);  // a failure guard, not a sleep
constexpr const char* kPods = "/api/v1/namespaces/ml/pods";

json node(const std::string& name, bool cordoned = false) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}}},
          {"spec", {{"unschedulable", cordoned}}},
          {"status",
           {{"allocatable", {{"cpu", "8"}, {"memory", "32Gi"}, {"nvidia.com/gpu", "4"}}},
            {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

json pod(const std::string& name, const std::string& node_name, const std::string& cpu) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "ml"}}},
          {"spec",
           {{"nodeName", node_name},
            {"containers", json::array({{{"name", "main"},
                                         {"image", "busybox"},
                                         {"resources", {{"requests", {{"cpu", cpu}}}}}}})}}},
          {"status", {{"phase", "Running"}}}};
}

// The cpu left on `name` in the snapshot; none when the node is not there.
std::optional<std::int64_t> free_cpu(const std::vector<NodeUsage>& nodes, const std::string& name) {
  for (const NodeUsage& usage : nodes)
    if (usage.name == name) return usage.allocatable.at("cpu");
  return std::nullopt;
}

class KubeClusterViewTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // ctest sets it; this lets the binary run on its own too.
    ::setenv("GANTRY_SOURCE_DIR", GANTRY_SOURCE_DIR, /*overwrite=*/0);
  }

  void create(const std::string& path, const json& object) {
    ASSERT_EQ(client_.post(path, object.dump()).status, 201) << object.dump();
  }

  // Waits on changed_fd (poll, then clear) until `holds()`; false when the
  // guard ran out first.
  template <class Predicate>
  bool await_view(Predicate&& holds) {
    const auto deadline = std::chrono::steady_clock::now() + kAwaitGuard;
    while (!holds()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd ready{.fd = view_.changed_fd(), .events = POLLIN, .revents = 0};
      if (::poll(&ready, 1, static_cast<int>(left.count())) < 0 && errno != EINTR) return false;
      view_.clear_changed();
    }
    return true;
  }

  bool await_cpu(const std::string& name, std::int64_t milli) {
    return await_view([&] { return free_cpu(view_.snapshot(), name) == milli; });
  }

  support::TempDir dir_{"kube-cluster-view"};
  kube::testing::FixtureServer fixture_{{}, dir_.path() / "fixture.log"};
  kube::Client client_{kube::ClusterAccess{.server = fixture_.url()}};
  KubeClusterView view_{client_, [](const json& p) {
                          return p["metadata"]["name"].get<std::string>().starts_with("own-");
                        }};
};

TEST_F(KubeClusterViewTest, TheInitialListsGiveTheUsableNodes) {
  create(KubeClusterView::kNodesPath, node("a"));
  create(KubeClusterView::kNodesPath, node("b"));
  create(KubeClusterView::kNodesPath, node("cordoned", /*cordoned=*/true));
  create(kPods, pod("on-a", "a", "3"));
  create(kPods, pod("own-on-b", "b", "3"));
  view_.start();

  ASSERT_TRUE(await_view([&] { return view_.synced(); }));
  const std::vector<NodeUsage> nodes = view_.snapshot();
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(free_cpu(nodes, "a"), 5'000);
  EXPECT_EQ(free_cpu(nodes, "b"), 8'000);  // Gantry's own pod is the agent's to count
  EXPECT_EQ(nodes[0].allocatable.at("nvidia.com/gpu"), 4'000);
  EXPECT_EQ(view_.relists(), 2u);
}

TEST_F(KubeClusterViewTest, APodCreatedOnANodeShrinksItAndItsDeletionGivesItBack) {
  create(KubeClusterView::kNodesPath, node("a"));
  view_.start();
  ASSERT_TRUE(await_cpu("a", 8'000));

  create(kPods, pod("p", "a", "2500m"));
  ASSERT_TRUE(await_cpu("a", 5'500));

  ASSERT_EQ(client_.remove(std::string(kPods) + "/p").status, 200);
  EXPECT_TRUE(await_cpu("a", 8'000));
  EXPECT_EQ(view_.relists(), 2u);  // all of it through the watches
}

TEST_F(KubeClusterViewTest, ACompactionMakesItRelistAndTheSnapshotIsRightAfter) {
  create(KubeClusterView::kNodesPath, node("a"));
  create(kPods, pod("before", "a", "1"));
  view_.start();
  ASSERT_TRUE(await_cpu("a", 7'000));
  const std::uint64_t lists_before = view_.relists();

  ASSERT_EQ(client_.post("/fixture/compact", "{}").status, 200);
  create(kPods, pod("after", "a", "2"));
  ASSERT_EQ(client_.remove(std::string(kPods) + "/before").status, 200);
  create(KubeClusterView::kNodesPath, node("b"));

  ASSERT_TRUE(await_view([&] {
    const std::vector<NodeUsage> nodes = view_.snapshot();
    return view_.relists() > lists_before && free_cpu(nodes, "a") == 6'000 &&
           free_cpu(nodes, "b") == 8'000;
  }));
  EXPECT_EQ(view_.snapshot().size(), 2u);
}

}  // namespace
}  // namespace gantry::agents
