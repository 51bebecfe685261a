#include "karmada/workload_status.hpp"

#include <gtest/gtest.h>

#include "hub/field_error.hpp"

namespace gantry::karmada {
namespace {

using nlohmann::json;

json binding_of(const std::string& api_version, const std::string& kind, json items) {
  return {
      {"apiVersion", "work.karmada.io/v1alpha2"},
      {"kind", "ResourceBinding"},
      {"metadata", {{"name", "ddp-job"}, {"namespace", "research"}}},
      {"spec",
       {{"resource",
         {{"apiVersion", api_version}, {"kind", kind}, {"namespace", "research"}, {"name", "ddp"}}},
        {"clusters",
         json::array({{{"name", "west"}, {"replicas", 3}}, {{"name", "east"}, {"replicas", 1}}})}}},
      {"status", {{"aggregatedStatus", std::move(items)}}}};
}

// A Volcano Job's status on one member cluster, as Karmada's Lua
// ReflectStatus copies it into aggregatedStatus[].status.
json volcano_item(const std::string& cluster, const std::string& phase) {
  json item = json::parse(R"({
    "applied": true,
    "health": "Healthy",
    "status": {
      "state": {"phase": "", "reason": "PodFailed", "message": "worker-0 exited 137"},
      "minAvailable": 3,
      "pending": 2, "running": 2, "succeeded": 4, "failed": 1,
      "taskStatusCount": {
        "master": {"phase": {"Running": 1}},
        "worker": {"phase": {"Running": 1, "Failed": 1, "Pending": 2, "Succeeded": 4}}
      },
      "retryCount": 0,
      "version": 2
    }
  })");
  item["clusterName"] = cluster;
  item["status"]["state"]["phase"] = phase;
  return item;
}

json volcano_binding(json items) {
  return binding_of("batch.volcano.sh/v1alpha1", "Job", std::move(items));
}

TEST(PartProgress, MissingItemIsNotReported) {
  const PartProgress progress =
      part_progress(volcano_binding(json::array({volcano_item("west", "Running")})), "east");
  EXPECT_FALSE(progress.reported);
  EXPECT_EQ(progress.phase, "");
  EXPECT_TRUE(progress.tasks.empty());
}

TEST(PartProgress, NoAggregatedStatusIsNotReported) {
  json binding = volcano_binding(json::array());
  binding.erase("status");
  EXPECT_FALSE(part_progress(binding, "west").reported);
}

TEST(PartProgress, VolcanoRunningWithTaskCounts) {
  const json binding = volcano_binding(
      json::array({volcano_item("east", "Pending"), volcano_item("west", "Running")}));
  const PartProgress progress = part_progress(binding, "west");
  EXPECT_TRUE(progress.reported);
  EXPECT_EQ(progress.phase, protocol::phase::kRunning);
  ASSERT_EQ(progress.tasks.size(), 2u);
  EXPECT_EQ(progress.tasks[0].name, "master");
  EXPECT_EQ(progress.tasks[0].running, 1);
  EXPECT_EQ(progress.tasks[0].pending, 0);
  EXPECT_EQ(progress.tasks[1].name, "worker");
  EXPECT_EQ(progress.tasks[1].pending, 2);
  EXPECT_EQ(progress.tasks[1].running, 1);
  EXPECT_EQ(progress.tasks[1].succeeded, 4);
  EXPECT_EQ(progress.tasks[1].failed, 1);
}

struct PhaseCase {
  const char* volcano;
  const char* gantry;
};

void PrintTo(const PhaseCase& c, std::ostream* out) {
  *out << '"' << c.volcano << "\" -> \"" << c.gantry << '"';
}

class VolcanoPhase : public testing::TestWithParam<PhaseCase> {};

TEST_P(VolcanoPhase, MapsToGantryPhase) {
  const PartProgress progress = part_progress(
      volcano_binding(json::array({volcano_item("west", GetParam().volcano)})), "west");
  EXPECT_TRUE(progress.reported);
  EXPECT_EQ(progress.phase, GetParam().gantry);
}

INSTANTIATE_TEST_SUITE_P(
    AllPhases, VolcanoPhase,
    testing::Values(PhaseCase{"Pending", ""}, PhaseCase{"Inqueue", ""}, PhaseCase{"", ""},
                    PhaseCase{"Running", "Running"}, PhaseCase{"Restarting", "Running"},
                    PhaseCase{"Completing", "Running"}, PhaseCase{"Completed", "Completed"},
                    PhaseCase{"Failed", "Failed"}, PhaseCase{"Aborting", "Failed"},
                    PhaseCase{"Aborted", "Failed"}, PhaseCase{"Terminating", "Failed"},
                    PhaseCase{"Terminated", "Failed"}),
    [](const testing::TestParamInfo<PhaseCase>& info) {
      return std::string(info.param.volcano).empty() ? std::string("Empty")
                                                     : std::string(info.param.volcano);
    });

TEST(PartProgress, VolcanoFailureSaysWhy) {
  const PartProgress progress =
      part_progress(volcano_binding(json::array({volcano_item("west", "Failed")})), "west");
  EXPECT_EQ(progress.phase, protocol::phase::kFailed);
  EXPECT_EQ(progress.message, "Volcano job Failed: PodFailed: worker-0 exited 137");
}

TEST(PartProgress, VolcanoPendingIsNotRunningThoughHealthy) {
  // Karmada's Volcano health interpreter calls Pending healthy.
  const PartProgress progress =
      part_progress(volcano_binding(json::array({volcano_item("west", "Pending")})), "west");
  EXPECT_EQ(progress.phase, "");
}

TEST(PartProgress, EmptyTaskStatusCountFromLuaIsNoTasks) {
  json item = volcano_item("west", "Running");
  item["status"]["taskStatusCount"] = json::array();  // Lua's empty table
  const PartProgress progress = part_progress(volcano_binding(json::array({item})), "west");
  EXPECT_EQ(progress.phase, protocol::phase::kRunning);
  EXPECT_TRUE(progress.tasks.empty());
}

json batch_item(json status) {
  return {{"clusterName", "west"},
          {"applied", true},
          {"health", "Healthy"},
          {"status", std::move(status)}};
}

json batch_binding(json status) {
  return binding_of("batch/v1", "Job", json::array({batch_item(std::move(status))}));
}

TEST(PartProgress, BatchJobActiveIsRunning) {
  const PartProgress progress =
      part_progress(batch_binding({{"active", 3}, {"startTime", "2024-05-01T10:00:00Z"}}), "west");
  EXPECT_EQ(progress.phase, protocol::phase::kRunning);
  ASSERT_EQ(progress.tasks.size(), 1u);
  EXPECT_EQ(progress.tasks[0].name, "main");
  EXPECT_EQ(progress.tasks[0].running, 3);
}

TEST(PartProgress, BatchJobCompleteCondition) {
  const PartProgress progress = part_progress(
      batch_binding(json::parse(R"({"succeeded": 3, "completionTime": "2024-05-01T11:00:00Z",
        "conditions": [{"type": "SuccessCriteriaMet", "status": "True"},
                       {"type": "Complete", "status": "True"}]})")),
      "west");
  EXPECT_EQ(progress.phase, protocol::phase::kCompleted);
  EXPECT_EQ(progress.tasks[0].succeeded, 3);
  EXPECT_EQ(progress.tasks[0].running, 0);
}

TEST(PartProgress, BatchJobFailedCondition) {
  const PartProgress progress = part_progress(batch_binding(json::parse(R"({"failed": 4,
        "conditions": [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded",
                        "message": "Job has reached the specified backoff limit"}]})")),
                                              "west");
  EXPECT_EQ(progress.phase, protocol::phase::kFailed);
  EXPECT_EQ(progress.message, "Job failed: Job has reached the specified backoff limit");
  EXPECT_EQ(progress.tasks[0].failed, 4);
}

TEST(PartProgress, BatchJobNotStartedYet) {
  EXPECT_EQ(part_progress(batch_binding(json::object()), "west").phase, "");
}

json deployment_binding(json item) {
  return binding_of("apps/v1", "Deployment", json::array({std::move(item)}));
}

TEST(PartProgress, OtherWorkloadsFallBackToHealth) {
  json item = {{"clusterName", "west"},
               {"applied", true},
               {"health", "Healthy"},
               {"status", {{"replicas", 3}, {"readyReplicas", 3}}}};
  EXPECT_EQ(part_progress(deployment_binding(item), "west").phase, protocol::phase::kRunning);
  item["health"] = "Unknown";
  EXPECT_EQ(part_progress(deployment_binding(item), "west").phase, "");
  item["health"] = "Healthy";
  item["applied"] = false;
  EXPECT_EQ(part_progress(deployment_binding(item), "west").phase, "");
}

TEST(PartProgress, ApplyFailureIsNotAPhaseButAMessage) {
  const json item = {
      {"clusterName", "west"},
      {"applied", false},
      {"appliedMessage", "Failed to apply all manifests (0/1): namespace \"research\" not found"},
      {"health", "Unknown"}};
  const PartProgress progress = part_progress(volcano_binding(json::array({item})), "west");
  EXPECT_TRUE(progress.reported);
  EXPECT_EQ(progress.phase, "");
  EXPECT_EQ(progress.message,
            "Failed to apply all manifests (0/1): namespace \"research\" not found");
}

TEST(PartProgress, EndedWorkloadKeepsItsEndWhenAReapplyFails) {
  json item = volcano_item("west", "Completed");
  item["applied"] = false;
  item["appliedMessage"] = "admission webhook denied the update";
  const PartProgress progress = part_progress(volcano_binding(json::array({item})), "west");
  EXPECT_EQ(progress.phase, protocol::phase::kCompleted);
  EXPECT_EQ(progress.message, "admission webhook denied the update");
  item["status"]["state"]["phase"] = "Running";
  EXPECT_EQ(part_progress(volcano_binding(json::array({item})), "west").phase, "");
}

TEST(PartProgress, WrongTypeNamesTheField) {
  json item = volcano_item("west", "Running");
  item["status"]["taskStatusCount"]["worker"]["phase"]["Running"] = "1";
  try {
    part_progress(volcano_binding(json::array({item})), "west");
    FAIL() << "expected FieldError";
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), "status.aggregatedStatus[0].status.taskStatusCount.worker.phase.Running");
    EXPECT_EQ(e.value(), "1");
  }
}

}  // namespace
}  // namespace gantry::karmada
