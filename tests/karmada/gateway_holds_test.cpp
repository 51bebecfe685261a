// Terminating parts: a part taken off a member cluster stays counted in that
// cluster's UsageReports until Karmada shows its workload gone there, or the
// termination grace passes; a Prepare that needs the held room waits.
#include <gtest/gtest.h>

#include "karmada/gateway_core.hpp"

namespace gantry::karmada {
namespace {

using nlohmann::json;

constexpr std::int64_t kGpu = 1000;  // one GPU, in milli-units
const char* const kGpuName = "nvidia.com/gpu";

json cluster_status(bool ready) {
  return {{"conditions", json::array({{{"type", "Ready"}, {"status", ready ? "True" : "False"}}})}};
}

// Two graded nodes of 8 GPUs each.
json graded_cluster(const std::string& name) {
  json status = cluster_status(true);
  status["resourceSummary"] = {
      {"allocatable", {{"cpu", "64"}, {kGpuName, "16"}}},
      {"allocatableModelings", json::array({{{"grade", 0}, {"count", 2}}})}};
  return {{"metadata", {{"name", name}}},
          {"spec",
           {{"resourceModels",
             json::array({{{"grade", 0},
                           {"ranges", json::array({{{"name", "cpu"}, {"min", "32"}, {"max", "64"}},
                                                   {{"name", kGpuName}, {"min", "8"}, {"max", "9"}}})}}})}}},
          {"status", status}};
}

// No models: one summary node of 16 GPUs, `allocated` of them in use.
json summary_cluster(const std::string& name, int allocated) {
  json status = cluster_status(true);
  status["resourceSummary"] = {{"allocatable", {{kGpuName, "16"}}},
                               {"allocated", {{kGpuName, std::to_string(allocated)}}}};
  return {{"metadata", {{"name", name}}}, {"status", status}};
}

json suspended_binding(const std::string& name) {
  return {{"apiVersion", "work.karmada.io/v1alpha2"},
          {"kind", "ResourceBinding"},
          {"metadata", {{"namespace", "team-a"}, {"name", name}}},
          {"spec",
           {{"resource",
             {{"apiVersion", "batch.volcano.sh/v1alpha1"},
              {"kind", "Job"},
              {"namespace", "team-a"},
              {"name", name}}},
            {"schedulerName", "gantry"},
            {"suspension", {{"scheduling", true}}}}}};
}

// As Karmada shows the binding: the clusters it lists, and an
// aggregatedStatus item for each member that still has the workload.
json shown(const std::string& name, std::vector<std::string> listed,
           std::vector<std::string> with_item) {
  json object = suspended_binding(name);
  object["spec"]["clusters"] = json::array();
  for (const std::string& cluster : listed) object["spec"]["clusters"].push_back({{"name", cluster}});
  object["status"]["aggregatedStatus"] = json::array();
  for (const std::string& cluster : with_item)
    object["status"]["aggregatedStatus"].push_back(
        {{"clusterName", cluster}, {"applied", true}, {"health", "Healthy"}});
  return object;
}

protocol::Prepare prepare_gpus(DispatchId id, const std::string& binding, std::int32_t replicas,
                               std::int64_t gpus_each) {
  protocol::Prepare prepare;
  prepare.dispatch_id = id;
  prepare.job.name = "team-a." + binding;
  prepare.job.annotations[kBindingAnnotation] = "team-a/" + binding;
  protocol::TaskSpec task;
  task.name = "worker";
  task.replicas = replicas;
  protocol::ContainerSpec container;
  container.requests[kGpuName] = gpus_each * kGpu;
  task.containers.push_back(container);
  prepare.job.tasks.push_back(task);
  prepare.task_replicas["worker"] = replicas;
  return prepare;
}

std::vector<std::int64_t> allocated_gpus(const protocol::UsageReport& report) {
  std::vector<std::int64_t> gpus;
  for (const protocol::NodeUsage& node : report.nodes) {
    const auto found = node.allocated.find(kGpuName);
    gpus.push_back(found == node.allocated.end() ? 0 : found->second / kGpu);
  }
  return gpus;
}

bool admitted(const GatewayOutbox& out, DispatchId id) {
  return std::any_of(out.messages.begin(), out.messages.end(), [&](const auto& entry) {
    const auto* admit = std::get_if<protocol::Admit>(&entry.second);
    return admit != nullptr && admit->dispatch_id == id;
  });
}

class GatewayHoldsTest : public ::testing::Test {
 protected:
  static constexpr TimeMs kGraceMs = 5000;

  void SetUp() override {
    GatewayOutbox out;
    core.on_clusters_listed({graded_cluster("east"), summary_cluster("west", 4)}, out);
    core.on_bindings_listed({suspended_binding("old"), suspended_binding("new")}, out);
  }

  // "old" runs `replicas` x 8 GPUs on `cluster`, released and shown running,
  // then the hub evicts it.
  GatewayOutbox run_then_evict(const std::string& cluster, std::int32_t replicas) {
    GatewayOutbox out;
    core.on_prepare(cluster, prepare_gpus(1, "old", replicas, 8), out);
    protocol::Commit commit;
    commit.dispatch_id = 1;
    commit.job = "team-a.old";
    core.on_commit(cluster, commit, out);
    EXPECT_EQ(out.writes.size(), 1u) << "released";
    core.on_binding_event("MODIFIED", shown("old", {cluster}, {cluster}), out);
    GatewayOutbox evicted;
    core.on_cancel(cluster, protocol::Cancel{1, "team-a.old"}, evicted);
    EXPECT_EQ(evicted.writes.size(), 1u) << "suspended";
    return evicted;
  }

  GatewayCore core{GatewayCoreOptions{120000, kGraceMs}};
};

TEST_F(GatewayHoldsTest, AnEvictedPartStaysCountedWhileKarmadaShowsItsWorkload) {
  EXPECT_EQ(allocated_gpus(core.usage_report("east")), (std::vector<std::int64_t>{0, 0}));
  const GatewayOutbox evicted = run_then_evict("east", 2);
  EXPECT_TRUE(evicted.usage_changed.contains("east"));
  EXPECT_EQ(allocated_gpus(core.usage_report("east")), (std::vector<std::int64_t>{8, 8}));

  // Suspension shown, but the member's pods still terminate: the item stays.
  GatewayOutbox suspended;
  core.on_binding_event("MODIFIED", shown("old", {}, {"east"}), suspended);
  EXPECT_EQ(allocated_gpus(core.usage_report("east")), (std::vector<std::int64_t>{8, 8}));
  EXPECT_EQ(core.terminating_count("east"), 1u);

  GatewayOutbox gone;
  core.on_binding_event("MODIFIED", shown("old", {}, {}), gone);
  EXPECT_TRUE(gone.usage_changed.contains("east"));
  EXPECT_EQ(allocated_gpus(core.usage_report("east")), (std::vector<std::int64_t>{0, 0}));
  EXPECT_EQ(core.terminating_count("east"), 0u);
}

TEST_F(GatewayHoldsTest, WhileTheClusterIsStillListedTheMissingItemIsNoProofOfAnEnd) {
  run_then_evict("east", 1);
  GatewayOutbox out;
  core.on_binding_event("MODIFIED", shown("old", {"east"}, {}), out);
  EXPECT_EQ(core.terminating_count("east"), 1u) << "the suspension has not reached Karmada yet";
}

TEST_F(GatewayHoldsTest, TheHoldEndsAtTheGraceDeadlineEvenIfTheItemStays) {
  run_then_evict("east", 1);
  GatewayOutbox out;
  core.on_time(1000, out);  // starts the clock
  EXPECT_EQ(core.next_deadline(), 1000 + kGraceMs);
  core.on_time(1000 + kGraceMs - 1, out);
  EXPECT_EQ(core.terminating_count("east"), 1u);
  GatewayOutbox late;
  core.on_time(1000 + kGraceMs, late);
  EXPECT_EQ(core.terminating_count("east"), 0u);
  EXPECT_TRUE(late.usage_changed.contains("east"));
  EXPECT_EQ(allocated_gpus(core.usage_report("east")), (std::vector<std::int64_t>{0, 0}));
  EXPECT_EQ(core.next_deadline(), 0);
}

TEST_F(GatewayHoldsTest, ADeletedBindingEndsItsHolds) {
  run_then_evict("east", 2);
  GatewayOutbox out;
  core.on_binding_event("DELETED", shown("old", {}, {"east"}), out);
  EXPECT_EQ(core.terminating_count("east"), 0u);
}

// Graded nodes: a terminating replica takes a node that could hold it, and
// one no node could hold is already counted by Karmada's models.
TEST_F(GatewayHoldsTest, OnGradedNodesEachReplicaTakesANodeWithRoomForIt) {
  run_then_evict("east", 1);
  EXPECT_EQ(allocated_gpus(core.usage_report("east")), (std::vector<std::int64_t>{8, 0}));
}

// The summary node: allocated grows by the parts, capped at allocatable.
TEST_F(GatewayHoldsTest, OnTheSummaryNodeAllocatedGrowsUpToAllocatable) {
  run_then_evict("west", 1);
  EXPECT_EQ(allocated_gpus(core.usage_report("west")), (std::vector<std::int64_t>{12}));
  GatewayOutbox out;
  core.on_cluster_event("MODIFIED", summary_cluster("west", 12), out);
  EXPECT_EQ(allocated_gpus(core.usage_report("west")), (std::vector<std::int64_t>{16}));
}

// The hub freed the room when it evicted, and may place a gang there before
// the report that counts the terminating part reaches it.
TEST_F(GatewayHoldsTest, APrepareNeedingHeldRoomWaitsUntilKarmadaShowsTheWorkloadGone) {
  run_then_evict("east", 2);
  GatewayOutbox waiting;
  core.on_prepare("east", prepare_gpus(2, "new", 2, 8), waiting);
  EXPECT_TRUE(waiting.messages.empty()) << "no answer while the room is held";
  core.on_prepare("east", prepare_gpus(2, "new", 2, 8), waiting);
  EXPECT_TRUE(waiting.messages.empty()) << "a repeat waits too";

  GatewayOutbox still;
  core.on_binding_event("MODIFIED", shown("old", {}, {"east"}), still);
  EXPECT_FALSE(admitted(still, 2));

  GatewayOutbox gone;
  core.on_binding_event("MODIFIED", shown("old", {}, {}), gone);
  EXPECT_TRUE(admitted(gone, 2));
  EXPECT_EQ(core.dispatch_count(), 1u);
}

TEST_F(GatewayHoldsTest, APrepareThatFitsBesideTheHeldRoomIsAdmittedAtOnce) {
  run_then_evict("east", 1);
  GatewayOutbox out;
  core.on_prepare("east", prepare_gpus(2, "new", 1, 8), out);
  EXPECT_TRUE(admitted(out, 2));
  GatewayOutbox second;
  core.on_prepare("east", prepare_gpus(3, "new", 1, 8), second);
  EXPECT_FALSE(admitted(second, 3)) << "the other node is taken by dispatch 2";
}

TEST_F(GatewayHoldsTest, AWaitingPrepareCancelledByTheHubIsRefused) {
  run_then_evict("east", 2);
  GatewayOutbox out;
  core.on_prepare("east", prepare_gpus(2, "new", 1, 8), out);
  GatewayOutbox cancelled;
  core.on_abort("east", protocol::Abort{2, "team-a.new", 0, "other part rejected"}, cancelled);
  ASSERT_EQ(cancelled.messages.size(), 1u);
  EXPECT_NE(std::get_if<protocol::Reject>(&cancelled.messages[0].second), nullptr);
  GatewayOutbox gone;
  core.on_binding_event("MODIFIED", shown("old", {}, {}), gone);
  EXPECT_FALSE(admitted(gone, 2));
}

}  // namespace
}  // namespace gantry::karmada
