#include "karmada/scheduled_bindings.hpp"

#include <gtest/gtest.h>

namespace gantry::karmada {
namespace {

using nlohmann::json;

json binding(const std::string& api_version, const std::string& kind,
             const std::string& scheduler = "gantry") {
  return {
      {"apiVersion", "work.karmada.io/v1alpha2"},
      {"kind", "ResourceBinding"},
      {"metadata", {{"namespace", "research"}, {"name", "w-" + kind}}},
      {"spec",
       {{"resource",
         {{"apiVersion", api_version}, {"kind", kind}, {"namespace", "research"}, {"name", "w"}}},
        {"schedulerName", scheduler}}}};
}

TEST(ScheduledBindings, VolcanoJobForGantryIsGantrys) {
  EXPECT_TRUE(gantry_schedules(binding("batch.volcano.sh/v1alpha1", "Job")));
}

TEST(ScheduledBindings, GenericWorkloadKindsForGantryAreGantrys) {
  EXPECT_TRUE(gantry_schedules(binding("apps/v1", "Deployment")));
  EXPECT_TRUE(gantry_schedules(binding("apps/v1", "StatefulSet")));
  EXPECT_TRUE(gantry_schedules(binding("batch/v1", "Job")));
}

// Karmada's own scheduler places these, or nothing would.
TEST(ScheduledBindings, KindsGantryDoesNotScheduleAreNeverGantrys) {
  EXPECT_FALSE(gantry_schedules(binding("v1", "ConfigMap")));
  EXPECT_FALSE(gantry_schedules(binding("v1", "Service")));
  EXPECT_FALSE(gantry_schedules(binding("v1", "Pod")));
  EXPECT_FALSE(gantry_schedules(binding("apps/v1", "DaemonSet")));
  EXPECT_FALSE(gantry_schedules(binding("batch.volcano.sh/v1alpha1", "PodGroup")));
  EXPECT_FALSE(gantry_schedules(binding("apps/v1beta1", "Deployment")));
  EXPECT_FALSE(is_scheduled_kind(binding("v1", "ConfigMap")));
}

TEST(ScheduledBindings, DefaultSchedulerKeepsEvenAVolcanoJob) {
  EXPECT_FALSE(gantry_schedules(binding("batch.volcano.sh/v1alpha1", "Job", "default-scheduler")));
  json unnamed = binding("apps/v1", "Deployment");
  unnamed["spec"].erase("schedulerName");
  EXPECT_FALSE(gantry_schedules(unnamed));
}

TEST(ScheduledBindings, QueueAnnotationAsksForGantry) {
  json annotated = binding("apps/v1", "Deployment", "default-scheduler");
  annotated["metadata"]["annotations"] = {{kQueueAnnotation, "serving"}};
  EXPECT_TRUE(asks_for_gantry(annotated));
  EXPECT_TRUE(gantry_schedules(annotated));
  json config_map = binding("v1", "ConfigMap", "default-scheduler");
  config_map["metadata"]["annotations"] = {{kQueueAnnotation, "serving"}};
  EXPECT_FALSE(gantry_schedules(config_map)) << "the annotation does not make a ConfigMap a job";
}

TEST(ScheduledBindings, BindingWithoutResourceIsNotGantrys) {
  json empty = binding("apps/v1", "Deployment");
  empty["spec"].erase("resource");
  EXPECT_FALSE(gantry_schedules(empty));
}

}  // namespace
}  // namespace gantry::karmada
