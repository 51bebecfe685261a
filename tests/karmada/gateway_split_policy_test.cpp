// The OverridePolicy the gateway writes with a split Volcano Job's release:
// per cluster, the member's copy of the Job becomes exactly its part
// (karmada/split_override.hpp), and the policy goes when the split does.
#include <gtest/gtest.h>

#include "karmada/gateway_core.hpp"
#include "karmada/split_override.hpp"

namespace gantry::karmada {
namespace {

using nlohmann::json;
using Policy = BindingWrite::Policy;

json cluster(const std::string& name) {
  return json{{"apiVersion", "cluster.karmada.io/v1alpha1"},
              {"kind", "Cluster"},
              {"metadata", {{"name", name}}},
              {"status",
               {{"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})},
                {"resourceSummary", {{"allocatable", {{"cpu", "256"}, {"nvidia.com/gpu", "16"}}}}}}}};
}

json binding(const std::string& api_version, const std::string& kind) {
  return json{{"apiVersion", "work.karmada.io/v1alpha2"},
              {"kind", "ResourceBinding"},
              {"metadata", {{"namespace", "team-a"}, {"name", "train-job"}, {"uid", "b-uid-1"}}},
              {"spec",
               {{"resource",
                 {{"apiVersion", api_version}, {"kind", kind}, {"namespace", "team-a"}, {"name", "train"}}},
                {"schedulerName", "gantry"},
                {"suspension", {{"scheduling", true}}}}}};
}

protocol::TaskSpec task(const std::string& name, std::int32_t replicas, std::int32_t min_available = -1) {
  protocol::TaskSpec spec;
  spec.name = name;
  spec.replicas = replicas;
  spec.min_available = min_available;
  return spec;
}

// A Job of 1 master (minAvailable 1) and 7 workers (minAvailable 5), minSuccess 8.
protocol::JobSpec master_and_workers() {
  protocol::JobSpec job;
  job.name = "team-a.train-job";
  job.annotations[kBindingAnnotation] = "team-a/train-job";
  job.tasks = {task("master", 1, 1), task("worker", 7, 5)};
  job.min_available = 8;
  job.min_success = 8;
  return job;
}

using Shares = std::map<std::string, std::int32_t>;

json add(const std::string& path, std::int32_t value) {
  return json{{"path", path}, {"operator", "add"}, {"value", value}};
}

class GatewaySplitPolicyTest : public ::testing::Test {
 protected:
  void SetUp() override { use_binding(binding("batch.volcano.sh/v1alpha1", "Job")); }

  void use_binding(const json& object) {
    GatewayOutbox out;
    core = GatewayCore{};
    core.on_clusters_listed({cluster("north"), cluster("west"), cluster("south")}, out);
    core.on_bindings_listed({object}, out);
  }

  // Prepares and commits dispatch `id` with one part per cluster; the outbox
  // of the last commit (the release).
  GatewayOutbox place(DispatchId id, const protocol::JobSpec& job,
                      const std::vector<std::pair<std::string, Shares>>& parts) {
    GatewayOutbox out;
    const auto count = static_cast<std::int32_t>(parts.size());
    for (std::int32_t i = 0; i < count; ++i) {
      protocol::Prepare prepare;
      prepare.dispatch_id = id;
      prepare.part = i;
      prepare.parts = count;
      prepare.job = job;
      prepare.task_replicas = parts[static_cast<std::size_t>(i)].second;
      core.on_prepare(parts[static_cast<std::size_t>(i)].first, prepare, out);
    }
    for (std::int32_t i = 0; i < count; ++i) {
      out = GatewayOutbox{};
      protocol::Commit commit;
      commit.dispatch_id = id;
      commit.job = job.name;
      commit.part = i;
      core.on_commit(parts[static_cast<std::size_t>(i)].first, commit, out);
    }
    return out;
  }

  static const BindingWrite& only_write(const GatewayOutbox& out) {
    EXPECT_EQ(out.writes.size(), 1u);
    return out.writes.at(0);
  }

  static json rule_for(const json& policy, const std::string& cluster) {
    for (const json& rule : policy["spec"]["overrideRules"])
      if (rule["targetCluster"]["clusterNames"] == json::array({cluster})) return rule["overriders"]["plaintext"];
    ADD_FAILURE() << "no rule for " << cluster << " in " << policy.dump();
    return json::array();
  }

  GatewayCore core;
};

TEST_F(GatewaySplitPolicyTest, ATwoClusterSplitIsReleasedWithAPolicyCuttingEachCopyToItsPart) {
  const GatewayOutbox out =
      place(41, master_and_workers(), {{"north", {{"master", 1}, {"worker", 5}}}, {"west", {{"worker", 2}}}});
  const BindingWrite& write = only_write(out);
  EXPECT_EQ(write.kind, BindingWrite::Kind::kRelease);
  ASSERT_EQ(write.policy, Policy::kWritePolicy);
  const json& policy = write.override_policy;
  EXPECT_EQ(policy["apiVersion"], "policy.karmada.io/v1alpha1");
  EXPECT_EQ(policy["kind"], "OverridePolicy");
  EXPECT_EQ(policy["metadata"]["name"], "gantry-train-job");
  EXPECT_EQ(policy["metadata"]["namespace"], "team-a");
  EXPECT_EQ(policy["metadata"]["labels"][kManagedByLabel], "gantry");
  EXPECT_EQ(policy["metadata"]["labels"][kDispatchLabel], "41");
  EXPECT_EQ(policy["metadata"]["ownerReferences"][0]["uid"], "b-uid-1");
  EXPECT_EQ(policy["spec"]["resourceSelectors"],
            json::array({{{"apiVersion", "batch.volcano.sh/v1alpha1"},
                          {"kind", "Job"},
                          {"namespace", "team-a"},
                          {"name", "train"}}}));
  ASSERT_EQ(policy["spec"]["overrideRules"].size(), 2u);
  // Task minAvailable never above the part's replicas of it; the Job's is the
  // whole part (a gang of all its replicas); minSuccess capped to the part.
  EXPECT_EQ(rule_for(policy, "north"),
            json::array({add("/spec/tasks/0/replicas", 1), add("/spec/tasks/0/minAvailable", 1),
                         add("/spec/tasks/1/replicas", 5), add("/spec/tasks/1/minAvailable", 5),
                         add("/spec/minAvailable", 6), add("/spec/minSuccess", 6)}));
  EXPECT_EQ(rule_for(policy, "west"),
            json::array({add("/spec/tasks/0/replicas", 0), add("/spec/tasks/0/minAvailable", 0),
                         add("/spec/tasks/1/replicas", 2), add("/spec/tasks/1/minAvailable", 2),
                         add("/spec/minAvailable", 2), add("/spec/minSuccess", 2)}));
}

TEST_F(GatewaySplitPolicyTest, AThreeClusterSplitHasOneRuleEachAndLeavesUnstatedFieldsToVolcano) {
  protocol::JobSpec job;
  job.name = "team-a.train-job";
  job.annotations[kBindingAnnotation] = "team-a/train-job";
  job.tasks = {task("worker", 8)};  // no task minAvailable, no minSuccess
  const GatewayOutbox out = place(
      42, job, {{"north", {{"worker", 4}}}, {"west", {{"worker", 3}}}, {"south", {{"worker", 1}}}});
  const json& policy = only_write(out).override_policy;
  ASSERT_EQ(policy["spec"]["overrideRules"].size(), 3u);
  EXPECT_EQ(rule_for(policy, "north"),
            json::array({add("/spec/tasks/0/replicas", 4), add("/spec/minAvailable", 4)}));
  EXPECT_EQ(rule_for(policy, "west"),
            json::array({add("/spec/tasks/0/replicas", 3), add("/spec/minAvailable", 3)}));
  EXPECT_EQ(rule_for(policy, "south"),
            json::array({add("/spec/tasks/0/replicas", 1), add("/spec/minAvailable", 1)}));
}

TEST_F(GatewaySplitPolicyTest, ATaskMinAvailableBelowItsShareIsKept) {
  protocol::JobSpec job = master_and_workers();
  job.tasks[1].min_available = 2;  // of 7 workers
  const GatewayOutbox out =
      place(43, job, {{"north", {{"master", 1}, {"worker", 4}}}, {"west", {{"worker", 3}}}});
  const json west = rule_for(only_write(out).override_policy, "west");
  EXPECT_EQ(west[3], add("/spec/tasks/1/minAvailable", 2));
  EXPECT_EQ(west[4], add("/spec/minAvailable", 3));
}

TEST_F(GatewaySplitPolicyTest, AOneClusterReleaseWritesNoPolicyAndRemovesAnEarlierOne) {
  const GatewayOutbox out = place(44, master_and_workers(), {{"north", {{"master", 1}, {"worker", 7}}}});
  const BindingWrite& write = only_write(out);
  EXPECT_EQ(write.kind, BindingWrite::Kind::kRelease);
  EXPECT_EQ(write.policy, Policy::kDeletePolicy);
  EXPECT_TRUE(write.override_policy.is_null());
}

TEST_F(GatewaySplitPolicyTest, ReSuspendingASplitDeletesItsPolicy) {
  place(45, master_and_workers(), {{"north", {{"master", 1}, {"worker", 5}}}, {"west", {{"worker", 2}}}});
  GatewayOutbox out;
  core.on_cancel("west", protocol::Cancel{45, "team-a.train-job"}, out);
  const BindingWrite& write = only_write(out);
  EXPECT_EQ(write.kind, BindingWrite::Kind::kSuspend);
  EXPECT_EQ(write.policy, Policy::kDeletePolicy);
  GatewayOutbox other_part;
  core.on_cancel("north", protocol::Cancel{45, "team-a.train-job"}, other_part);
  EXPECT_TRUE(other_part.writes.empty()) << "suspended once";
}

TEST_F(GatewaySplitPolicyTest, ReSuspendingAOneClusterReleaseHasNoPolicyToDelete) {
  place(46, master_and_workers(), {{"north", {{"master", 1}, {"worker", 7}}}});
  GatewayOutbox out;
  core.on_cancel("north", protocol::Cancel{46, "team-a.train-job"}, out);
  EXPECT_EQ(only_write(out).policy, Policy::kNone);
}

// Karmada divides a Deployment itself (ReviseReplica): no policy, none deleted.
TEST_F(GatewaySplitPolicyTest, AWorkloadKarmadaDividesItselfNeedsNoPolicy) {
  use_binding(binding("apps/v1", "Deployment"));
  protocol::JobSpec job;
  job.name = "team-a.train-job";
  job.annotations[kBindingAnnotation] = "team-a/train-job";
  job.tasks = {task("main", 4)};
  const GatewayOutbox out = place(47, job, {{"north", {{"main", 2}}}, {"west", {{"main", 2}}}});
  EXPECT_EQ(only_write(out).policy, Policy::kNone);
}

// The policy write or the patch refused: no release happened, so a part is
// refused at once (the hub requeues the job) instead of waiting out the
// apply timeout, and the suspension has no release to undo.
TEST_F(GatewaySplitPolicyTest, AReleaseTheWriterCouldNotMakeIsRefusedAtOnce) {
  place(48, master_and_workers(), {{"north", {{"master", 1}, {"worker", 5}}}, {"west", {{"worker", 2}}}});
  GatewayOutbox out;
  core.on_release_failed(48, "writing OverridePolicy team-a/gantry-train-job: HTTP 403", out);
  ASSERT_EQ(out.messages.size(), 1u);
  const auto* reject = std::get_if<protocol::Reject>(&out.messages[0].second);
  ASSERT_NE(reject, nullptr);
  EXPECT_EQ(reject->dispatch_id, 48u);
  EXPECT_NE(reject->reason.find("Gantry could not release it: writing OverridePolicy"), std::string::npos)
      << reject->reason;
  ASSERT_EQ(out.writes.size(), 1u);
  EXPECT_EQ(out.writes[0].kind, BindingWrite::Kind::kSuspend);
  GatewayOutbox again;
  core.on_release_failed(48, "again", again);
  EXPECT_TRUE(again.messages.empty()) << "refused once";
}

}  // namespace
}  // namespace gantry::karmada
