// The Karmada gateway's decisions, driven without sockets: Karmada objects and
// hub frames in, hub messages, submissions and binding writes out.
#include "karmada/gateway_core.hpp"

#include <gtest/gtest.h>

namespace gantry::karmada {
namespace {

using nlohmann::json;

json cluster(const std::string& name, bool ready = true, int gpu_nodes = 2) {
  return json{
      {"apiVersion", "cluster.karmada.io/v1alpha1"},
      {"kind", "Cluster"},
      {"metadata", {{"name", name}, {"labels", {{"region", "eu"}}}}},
      {"spec",
       {{"resourceModels",
         json::array(
             {{{"grade", 0},
               {"ranges", json::array({{{"name", "cpu"}, {"min", "0"}, {"max", "16"}},
                                       {{"name", "nvidia.com/gpu"}, {"min", "0"}, {"max", "8"}}})}},
              {{"grade", 1},
               {"ranges",
                json::array({{{"name", "cpu"}, {"min", "16"}, {"max", "128"}},
                             {{"name", "nvidia.com/gpu"}, {"min", "8"}, {"max", "9"}}})}}})}}},
      {"status",
       {{"conditions", json::array({{{"type", "Ready"}, {"status", ready ? "True" : "False"}}})},
        {"resourceSummary",
         {{"allocatable", {{"cpu", "256"}, {"nvidia.com/gpu", "16"}}},
          {"allocatableModelings",
           json::array({{{"grade", 0}, {"count", 0}}, {{"grade", 1}, {"count", gpu_nodes}}})}}}}}};
}

json binding(const std::string& name, json extra_spec = json::object()) {
  json spec = {{"resource",
                {{"apiVersion", "batch.volcano.sh/v1alpha1"},
                 {"kind", "Job"},
                 {"namespace", "team-a"},
                 {"name", name}}},
               {"replicas", 2},
               {"replicaRequirements", {{"resourceRequest", {{"nvidia.com/gpu", "4"}}}}},
               {"schedulerName", "gantry"},
               {"suspension", {{"scheduling", true}}}};
  spec.update(extra_spec);
  return json{
      {"apiVersion", "work.karmada.io/v1alpha2"},
      {"kind", "ResourceBinding"},
      {"metadata", {{"namespace", "team-a"}, {"name", name + "-job"}, {"resourceVersion", "7"}}},
      {"spec", spec}};
}

// The binding as Gantry's release patch leaves it, with Karmada's status of
// each cluster's member workload.
json released(json object, const Decision& decision, const std::string& phase) {
  object["metadata"]["annotations"][kDecisionAnnotation] = decision_json(decision);
  object["spec"]["suspension"]["scheduling"] = false;
  json statuses = json::array();
  for (const DecisionPart& part : decision.parts)
    statuses.push_back({{"clusterName", part.cluster},
                        {"applied", true},
                        {"health", "Healthy"},
                        {"status", {{"state", {{"phase", phase}}}}}});
  object["status"]["aggregatedStatus"] = statuses;
  return object;
}

protocol::Prepare prepare(DispatchId id, const std::string& binding_name, std::int32_t part,
                          std::int32_t parts, std::int32_t replicas) {
  protocol::Prepare prepare;
  prepare.dispatch_id = id;
  prepare.part = part;
  prepare.parts = parts;
  prepare.job.name = "team-a." + binding_name;
  prepare.job.annotations[kBindingAnnotation] = "team-a/" + binding_name;
  prepare.task_replicas["main"] = replicas;
  return prepare;
}

protocol::Commit commit(DispatchId id, std::int32_t part) {
  protocol::Commit commit;
  commit.dispatch_id = id;
  commit.job = "team-a.train-job";
  commit.part = part;
  return commit;
}

template <class T>
const T* only_message(const GatewayOutbox& out, const std::string& cluster) {
  EXPECT_EQ(out.messages.size(), 1u);
  if (out.messages.size() != 1 || out.messages[0].first != cluster) return nullptr;
  return std::get_if<T>(&out.messages[0].second);
}

class GatewayCoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    GatewayOutbox out;
    core.on_clusters_listed({cluster("east"), cluster("west")}, out);
    core.on_bindings_listed({binding("train")}, out);
  }

  // Prepares and commits a split of "train-job": 1 replica on each cluster.
  void commit_split(DispatchId id, GatewayOutbox& out) {
    core.on_prepare("east", prepare(id, "train-job", 0, 2, 1), out);
    core.on_prepare("west", prepare(id, "train-job", 1, 2, 1), out);
    core.on_commit("east", commit(id, 0), out);
    core.on_commit("west", commit(id, 1), out);
  }

  GatewayCore core;
};

TEST_F(GatewayCoreTest, ClustersOpenSessionsAndReportNodesFromTheirResourceModels) {
  GatewayCore fresh;
  GatewayOutbox out;
  fresh.on_clusters_listed({cluster("east", true, 3), cluster("down", false)}, out);
  EXPECT_EQ(out.clusters_added, (std::vector<std::string>{"east", "down"}));
  const protocol::UsageReport east = fresh.usage_report("east");
  ASSERT_EQ(east.nodes.size(), 3u);
  EXPECT_EQ(east.nodes[0].allocatable.at("nvidia.com/gpu"), 8000);
  // Not ready in Karmada: no nodes to place on.
  EXPECT_TRUE(fresh.usage_report("down").nodes.empty());
  EXPECT_EQ(fresh.hello("east", "v").labels.at(kSourceLabel), kSourceValue);
}

TEST_F(GatewayCoreTest, ChangedModelsAreReportedAndVanishedClustersClosed) {
  GatewayOutbox out;
  core.on_cluster_event("MODIFIED", cluster("east", true, 1), out);
  EXPECT_EQ(out.usage_changed, (std::set<std::string>{"east"}));
  GatewayOutbox relisted;
  core.on_clusters_listed({cluster("east", true, 1)}, relisted);
  EXPECT_EQ(relisted.clusters_removed, (std::vector<std::string>{"west"}));
  EXPECT_TRUE(relisted.usage_changed.empty());
}

// The hub learns how the cluster's fit is known with its nodes.
TEST_F(GatewayCoreTest, ClustersWithoutModelsReportTheSummaryFitNote) {
  EXPECT_EQ(core.usage_report("east").fit_note, "");
  json without_models = cluster("east");
  without_models["spec"].erase("resourceModels");
  GatewayOutbox out;
  core.on_cluster_event("MODIFIED", without_models, out);
  EXPECT_EQ(out.usage_changed, (std::set<std::string>{"east"}));
  const protocol::UsageReport east = core.usage_report("east");
  ASSERT_EQ(east.nodes.size(), 1u);
  EXPECT_EQ(east.fit_note, "no node models: summary fit");
}

// Models that grade cpu only leave the same summary node: the note alone
// changes, and the hub still hears of it.
TEST_F(GatewayCoreTest, ANewFitNoteIsReportedEvenWithTheSameSummaryNode) {
  json without_models = cluster("east");
  without_models["spec"].erase("resourceModels");
  json cpu_models = cluster("east");
  for (json& model : cpu_models["spec"]["resourceModels"]) model["ranges"].erase(1);
  GatewayOutbox first;
  core.on_cluster_event("MODIFIED", without_models, first);
  const std::vector<protocol::NodeUsage> summary = core.usage_report("east").nodes;
  GatewayOutbox out;
  core.on_cluster_event("MODIFIED", cpu_models, out);
  EXPECT_EQ(core.usage_report("east").nodes, summary);
  EXPECT_EQ(out.usage_changed, (std::set<std::string>{"east"}));
  EXPECT_EQ(core.usage_report("east").fit_note,
            "resource models do not cover nvidia.com/gpu: summary fit");
}

// Even suspended and named for Gantry, a ConfigMap is not a job: the gateway
// neither submits it nor (karmada/gateway.cpp) reads its workload.
TEST_F(GatewayCoreTest, BindingOfAKindGantryDoesNotScheduleIsIgnored) {
  GatewayCore fresh;
  GatewayOutbox out;
  json config_map = binding("settings");
  config_map["spec"]["resource"] = {
      {"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"namespace", "team-a"}, {"name", "settings"}};
  fresh.on_bindings_listed({config_map, binding("train")}, out);
  ASSERT_EQ(out.submit.size(), 1u);
  EXPECT_EQ(out.submit[0].name, "train-job");
  EXPECT_EQ(fresh.binding_count(), 1u);
  EXPECT_FALSE(scheduled_by_gantry(config_map));
}

TEST_F(GatewayCoreTest, BindingsForGantryAreSubmittedOnceAcrossRelists) {
  GatewayCore fresh;
  GatewayOutbox out;
  json other = binding("other");
  other["spec"].erase("suspension");
  other["spec"]["schedulerName"] = "default-scheduler";
  fresh.on_bindings_listed({binding("train"), other}, out);
  ASSERT_EQ(out.submit.size(), 1u);
  EXPECT_EQ(out.submit[0].name, "train-job");
  GatewayOutbox again;
  fresh.on_bindings_listed({binding("train"), other}, again);
  fresh.on_binding_event("MODIFIED", binding("train"), again);
  EXPECT_TRUE(again.submit.empty());
}

TEST_F(GatewayCoreTest, AListIsSubmittedOldestFirst) {
  GatewayCore fresh;
  GatewayOutbox out;
  json older = binding("zeta");
  older["metadata"]["creationTimestamp"] = "2026-11-25T08:00:00Z";
  json newer = binding("alpha");
  newer["metadata"]["creationTimestamp"] = "2026-11-25T09:00:00Z";
  fresh.on_bindings_listed({newer, older}, out);  // as a list comes: by name
  ASSERT_EQ(out.submit.size(), 2u);
  EXPECT_EQ(out.submit[0].name, "zeta-job");
  EXPECT_EQ(out.submit[1].name, "alpha-job");
}

TEST_F(GatewayCoreTest, PreparesAreAdmittedOnlyForLiveBindingsOnReadyClusters) {
  GatewayOutbox out;
  core.on_prepare("east", prepare(1, "train-job", 0, 1, 2), out);
  EXPECT_NE(only_message<protocol::Admit>(out, "east"), nullptr);

  GatewayOutbox native;
  protocol::Prepare plain = prepare(2, "train-job", 0, 1, 2);
  plain.job.annotations.clear();
  core.on_prepare("east", plain, native);
  const auto* refused = only_message<protocol::Reject>(native, "east");
  ASSERT_NE(refused, nullptr);
  EXPECT_NE(refused->reason.find(kBindingAnnotation), std::string::npos) << refused->reason;

  GatewayOutbox gone;
  core.on_prepare("east", prepare(3, "deleted-job", 0, 1, 2), gone);
  const auto* unknown = only_message<protocol::Reject>(gone, "east");
  ASSERT_NE(unknown, nullptr);
  EXPECT_NE(unknown->reason.find("team-a/deleted-job no longer exists"), std::string::npos);

  GatewayOutbox down;
  core.on_cluster_event("MODIFIED", cluster("west", false), down);
  GatewayOutbox not_ready;
  core.on_prepare("west", prepare(4, "train-job", 0, 1, 2), not_ready);
  EXPECT_NE(only_message<protocol::Reject>(not_ready, "west"), nullptr);
}

TEST_F(GatewayCoreTest, ASplitIsReleasedInOneWriteOnlyOnceEveryPartIsCommitted) {
  GatewayOutbox out;
  core.on_prepare("east", prepare(9, "train-job", 0, 2, 1), out);
  core.on_prepare("west", prepare(9, "train-job", 1, 2, 1), out);
  core.on_commit("east", commit(9, 0), out);
  EXPECT_TRUE(out.writes.empty());
  core.on_commit("west", commit(9, 1), out);
  ASSERT_EQ(out.writes.size(), 1u);
  const BindingWrite& write = out.writes[0];
  EXPECT_EQ(write.kind, BindingWrite::Kind::kRelease);
  EXPECT_EQ(write.key.name, "train-job");
  EXPECT_EQ(write.decision.dispatch_id, 9u);
  ASSERT_EQ(write.decision.parts.size(), 2u);
  EXPECT_EQ(write.decision.parts[0].cluster, "east");
  EXPECT_EQ(write.decision.parts[1].cluster, "west");
  EXPECT_EQ(write.decision.parts[1].replicas, 1);
  // Every Commit is answered (the hub resends until then); a repeated one
  // writes nothing again.
  GatewayOutbox repeated;
  core.on_commit("west", commit(9, 1), repeated);
  EXPECT_NE(only_message<protocol::StatusUpdate>(repeated, "west"), nullptr);
  EXPECT_TRUE(repeated.writes.empty());
}

TEST_F(GatewayCoreTest, ACommitOfAPartNotPreparedHereIsRejected) {
  GatewayOutbox out;
  core.on_commit("east", commit(5, 0), out);
  const auto* refused = only_message<protocol::Reject>(out, "east");
  ASSERT_NE(refused, nullptr);
  EXPECT_EQ(refused->reason, "dispatch 5: not prepared here");
}

TEST_F(GatewayCoreTest, AggregatedStatusOfTheReleasedDecisionBecomesEachPartsStatus) {
  GatewayOutbox out;
  commit_split(11, out);
  const Decision decision = out.writes.at(0).decision;
  // Karmada still shows the binding before the patch: nothing is reported.
  GatewayOutbox before;
  json stale =
      released(binding("train"), Decision{10, "team-a.train-job", decision.parts}, "Running");
  core.on_binding_event("MODIFIED", stale, before);
  EXPECT_TRUE(before.messages.empty());

  GatewayOutbox running;
  core.on_binding_event("MODIFIED", released(binding("train"), decision, "Running"), running);
  ASSERT_EQ(running.messages.size(), 2u);
  const auto& first = std::get<protocol::StatusUpdate>(running.messages[0].second);
  EXPECT_EQ(first.phase, protocol::phase::kRunning);
  EXPECT_EQ(first.dispatch_id, 11u);
  // The same status again says nothing new.
  GatewayOutbox unchanged;
  core.on_binding_event("MODIFIED", released(binding("train"), decision, "Running"), unchanged);
  EXPECT_TRUE(unchanged.messages.empty());

  GatewayOutbox done;
  core.on_binding_event("MODIFIED", released(binding("train"), decision, "Completed"), done);
  ASSERT_EQ(done.messages.size(), 2u);
  EXPECT_EQ(std::get<protocol::StatusUpdate>(done.messages[1].second).phase,
            protocol::phase::kCompleted);
  EXPECT_EQ(core.dispatch_count(), 0u);
  // The end is repeated in the next Hello, in case the hub missed it.
  ASSERT_EQ(core.hello("west", "v").ended.size(), 1u);
}

TEST_F(GatewayCoreTest, CancellingACommittedDispatchSuspendsTheBindingOnce) {
  GatewayOutbox out;
  commit_split(12, out);
  GatewayOutbox cancelled;
  core.on_cancel("east", protocol::Cancel{12, "team-a.train-job"}, cancelled);
  core.on_cancel("west", protocol::Cancel{12, "team-a.train-job"}, cancelled);
  ASSERT_EQ(cancelled.writes.size(), 1u);
  EXPECT_EQ(cancelled.writes[0].kind, BindingWrite::Kind::kSuspend);
  EXPECT_EQ(cancelled.writes[0].decision.dispatch_id, 12u);
  ASSERT_EQ(cancelled.messages.size(), 2u);
  for (const auto& [cluster, message] : cancelled.messages)
    EXPECT_EQ(std::get<protocol::StatusUpdate>(message).phase, protocol::phase::kAborted);
  EXPECT_EQ(core.dispatch_count(), 0u);
}

TEST_F(GatewayCoreTest, AbortingAPreparedPartWritesNothing) {
  GatewayOutbox out;
  core.on_prepare("east", prepare(13, "train-job", 0, 1, 2), out);
  GatewayOutbox aborted;
  core.on_abort("east", protocol::Abort{13, "team-a.train-job", 0, "other part rejected"}, aborted);
  EXPECT_TRUE(aborted.writes.empty());
  EXPECT_TRUE(aborted.messages.empty());
  EXPECT_EQ(core.dispatch_count(), 0u);
}

TEST_F(GatewayCoreTest, ABindingDeletedInKarmadaOrMissingFromARelistCancelsItsJob) {
  GatewayOutbox deleted;
  core.on_binding_event("DELETED", binding("train"), deleted);
  EXPECT_EQ(deleted.cancel_jobs, (std::vector<std::string>{"team-a.train-job"}));

  GatewayOutbox out;
  core.on_bindings_listed({binding("a"), binding("b")}, out);
  GatewayOutbox relisted;
  core.on_bindings_listed({binding("b")}, relisted);
  EXPECT_EQ(relisted.cancel_jobs, (std::vector<std::string>{"team-a.a-job"}));
}

TEST_F(GatewayCoreTest, ABindingReleasedBeforeARestartIsListedInTheHello) {
  GatewayCore restarted;
  GatewayOutbox out;
  restarted.on_clusters_listed({cluster("east"), cluster("west")}, out);
  Decision decision{
      (std::uint64_t{3} << 40) + 5, "team-a.train-job", {DecisionPart{"west", 2, {{"main", 2}}}}};
  restarted.on_bindings_listed({released(binding("train"), decision, "Running")}, out);
  const protocol::Hello west = restarted.hello("west", "v");
  ASSERT_EQ(west.running.size(), 1u);
  EXPECT_EQ(west.running[0].dispatch_id, decision.dispatch_id);
  EXPECT_TRUE(west.running[0].committed);
  ASSERT_EQ(west.running[0].replicas.size(), 2u);
  EXPECT_EQ(west.running[0].replicas[0].task, "main");
  EXPECT_FALSE(west.running[0].replicas[0].node.empty());
  EXPECT_TRUE(restarted.hello("east", "v").running.empty());
}


// ------------------------------------------------------------ applies that fail

// The split of "train-job" (dispatch 9, east part 0, west part 1) as released,
// with aggregatedStatus items given per cluster.
json split_released_with(const std::vector<json>& items) {
  json object = released(binding("train"),
                         Decision{9, "team-a.train-job",
                                  {{"east", 1, {{"main", 1}}}, {"west", 1, {{"main", 1}}}}},
                         "Running");
  object["status"]["aggregatedStatus"] = items;
  return object;
}

const json kRunningEast = {{"clusterName", "east"},
                           {"applied", true},
                           {"health", "Healthy"},
                           {"status", {{"state", {{"phase", "Running"}}}}}};

TEST_F(GatewayCoreTest, AMemberRefusingTheWorkloadIsARejectAndTheBindingIsSuspended) {
  GatewayOutbox out;
  commit_split(9, out);
  const std::string refusal =
      "Failed to apply all manifests (0/1): admission webhook \"validatejob.volcano.sh\" denied "
      "the request: job 'minAvailable' should not be greater than total replicas in tasks;";
  GatewayOutbox refused;
  core.on_binding_event("MODIFIED",
                        split_released_with({kRunningEast,
                                             {{"clusterName", "west"},
                                              {"health", "Unknown"},
                                              {"appliedMessage", refusal}}}),
                        refused);
  std::vector<const protocol::Reject*> rejects;
  for (const auto& [cluster, message] : refused.messages)
    if (const auto* reject = std::get_if<protocol::Reject>(&message); reject && cluster == "west")
      rejects.push_back(reject);
  ASSERT_EQ(rejects.size(), 1u);
  EXPECT_EQ(rejects[0]->dispatch_id, 9u);
  EXPECT_EQ(rejects[0]->part, 1);
  EXPECT_EQ(rejects[0]->reason, "Karmada could not apply it on west: " + refusal);
  ASSERT_EQ(refused.writes.size(), 1u);
  EXPECT_EQ(refused.writes[0].kind, BindingWrite::Kind::kSuspend);
  EXPECT_EQ(refused.writes[0].decision.dispatch_id, 9u);

  // The hub cancels the other part: the binding is already suspended, and the
  // refused part is not reported again.
  GatewayOutbox cancelled;
  core.on_cancel("east", protocol::Cancel{9, "team-a.train-job"}, cancelled);
  EXPECT_TRUE(cancelled.writes.empty());
  EXPECT_EQ(core.dispatch_count(), 0u);
  for (const protocol::RunningDispatch& running : core.hello("west", "v").running)
    EXPECT_NE(running.dispatch_id, 9u);
}

TEST_F(GatewayCoreTest, StillApplyingIsNoRefusalUntilTheApplyTimeout) {
  GatewayCore timed(GatewayCoreOptions{5000});
  GatewayOutbox setup;
  timed.on_clusters_listed({cluster("east"), cluster("west")}, setup);
  timed.on_bindings_listed({binding("train")}, setup);
  timed.on_prepare("east", prepare(9, "train-job", 0, 2, 1), setup);
  timed.on_prepare("west", prepare(9, "train-job", 1, 2, 1), setup);
  timed.on_commit("east", commit(9, 0), setup);
  timed.on_commit("west", commit(9, 1), setup);

  GatewayOutbox started;
  timed.on_time(1000, started);  // the release was asked for: the clock starts
  EXPECT_EQ(timed.next_deadline(), 6000);
  // east applied; west shows an item without applied or a message: applying.
  GatewayOutbox applying;
  timed.on_binding_event(
      "MODIFIED",
      split_released_with({kRunningEast, {{"clusterName", "west"}, {"health", "Unknown"}}}),
      applying);
  for (const auto& [cluster, message] : applying.messages)
    EXPECT_EQ(std::get_if<protocol::Reject>(&message), nullptr) << cluster;
  GatewayOutbox early;
  timed.on_time(5999, early);
  EXPECT_TRUE(early.messages.empty());
  EXPECT_TRUE(early.writes.empty());

  GatewayOutbox late;
  timed.on_time(6000, late);
  const auto* reject = only_message<protocol::Reject>(late, "west");
  ASSERT_NE(reject, nullptr) << "the applied part on east is never timed out";
  EXPECT_EQ(reject->part, 1);
  EXPECT_EQ(reject->reason, "Karmada did not apply it on west within 5000 ms (still applying)");
  ASSERT_EQ(late.writes.size(), 1u);
  EXPECT_EQ(late.writes[0].kind, BindingWrite::Kind::kSuspend);
  EXPECT_EQ(timed.next_deadline(), 0);
  GatewayOutbox after;
  timed.on_time(99999, after);
  EXPECT_TRUE(after.messages.empty()) << "refused once";
}

TEST_F(GatewayCoreTest, AFailedReapplyAfterTheFirstApplyDoesNotStopThePart) {
  GatewayOutbox out;
  commit_split(9, out);
  json west_running = kRunningEast;
  west_running["clusterName"] = "west";
  GatewayOutbox running;
  core.on_binding_event("MODIFIED", split_released_with({kRunningEast, west_running}), running);
  GatewayOutbox reapply;
  core.on_binding_event("MODIFIED",
                        split_released_with({kRunningEast,
                                             {{"clusterName", "west"},
                                              {"appliedMessage", "Failed to apply all manifests "
                                                                 "(0/1): the server is busy"}}}),
                        reapply);
  for (const auto& [cluster, message] : reapply.messages)
    EXPECT_EQ(std::get_if<protocol::Reject>(&message), nullptr) << cluster;
  EXPECT_TRUE(reapply.writes.empty());
  GatewayOutbox later;
  core.on_time(0, later);
  core.on_time(10'000'000, later);
  EXPECT_TRUE(later.messages.empty()) << "applied parts have no apply deadline";
}

}  // namespace
}  // namespace gantry::karmada
