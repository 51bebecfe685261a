// The Volcano Job fields beyond the gang shape: what parses into the JobSpec,
// and what Volcano's admission webhook refuses, refused here naming the field.
#include <gtest/gtest.h>

#include <string>

#include "config/volcano_job.hpp"
#include "hub/field_error.hpp"

namespace gantry::config {
namespace {

// A two-task job with `spec_extra` added under spec and `task_extra` under
// the second task (both indented by the caller's text as given).
std::string job_with(const std::string& spec_extra, const std::string& task_extra = "",
                     const std::string& metadata = "  name: fields\n") {
  return "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n" + metadata +
         "spec:\n" + spec_extra +
         "  tasks:\n"
         "    - name: master\n"
         "      replicas: 1\n"
         "      template: {spec: {containers: [{name: c, image: busybox}]}}\n"
         "    - name: worker\n"
         "      replicas: 3\n" +
         task_extra +
         "      template: {spec: {containers: [{name: c, image: busybox}]}}\n";
}

// The field a refusal names.
std::string refused_field(const std::string& yaml) {
  try {
    parse_volcano_job(yaml);
  } catch (const hub::FieldError& e) {
    return e.field();
  }
  return "(accepted)";
}

TEST(JobPolicies, ParseEventsActionsExitCodesAndTimeouts) {
  const protocol::JobSpec job = parse_volcano_job(job_with(
      "  policies:\n"
      "    - {event: PodEvicted, action: RestartJob}\n"
      "    - {events: [PodFailed, TaskFailed], action: AbortJob, timeout: 1m30s}\n"
      "    - {exitCode: 3, action: CompleteJob}\n",
      "      policies:\n"
      "        - {event: TaskCompleted, action: CompleteJob}\n"));
  ASSERT_EQ(job.policies.size(), 3u);
  EXPECT_EQ(job.policies[0].events, std::vector<std::string>{"PodEvicted"});
  EXPECT_EQ(job.policies[0].action, "RestartJob");
  EXPECT_EQ(job.policies[1].events, (std::vector<std::string>{"PodFailed", "TaskFailed"}));
  EXPECT_EQ(job.policies[1].timeout_ms, 90'000);
  EXPECT_TRUE(job.policies[2].events.empty());
  EXPECT_EQ(job.policies[2].exit_code, 3);
  ASSERT_EQ(job.tasks[1].policies.size(), 1u);
  EXPECT_EQ(job.tasks[1].policies[0].events, std::vector<std::string>{"TaskCompleted"});
  EXPECT_TRUE(job.tasks[0].policies.empty());
}

TEST(JobPolicies, AreRefusedAsVolcanosWebhookRefusesThem) {
  EXPECT_EQ(refused_field(job_with("  policies: [{event: PodFailed, exitCode: 2, action: RestartJob}]\n")),
            "spec.policies[0].exitCode");
  EXPECT_EQ(refused_field(job_with("  policies: [{action: RestartJob}]\n")), "spec.policies[0]");
  EXPECT_EQ(refused_field(job_with("  policies: [{exitCode: 0, action: RestartJob}]\n")),
            "spec.policies[0].exitCode");
  EXPECT_EQ(refused_field(job_with("  policies: [{event: PodCrashed, action: RestartJob}]\n")),
            "spec.policies[0].event");
  EXPECT_EQ(refused_field(job_with("  policies: [{event: PodFailed, action: Reboot}]\n")),
            "spec.policies[0].action");
  EXPECT_EQ(refused_field(job_with("  policies:\n"
                                   "    - {event: PodFailed, action: RestartJob}\n"
                                   "    - {events: [PodEvicted, PodFailed], action: AbortJob}\n")),
            "spec.policies[1].event");
  EXPECT_EQ(refused_field(job_with("  policies:\n"
                                   "    - {exitCode: 2, action: RestartJob}\n"
                                   "    - {exitCode: 2, action: AbortJob}\n")),
            "spec.policies[1].exitCode");
  EXPECT_EQ(refused_field(job_with("  policies:\n"
                                   "    - {event: '*', action: RestartJob}\n"
                                   "    - {event: PodFailed, action: AbortJob}\n")),
            "spec.policies");
  EXPECT_EQ(refused_field(job_with("  policies: [{event: PodFailed, event2: x, action: AbortJob}]\n")),
            "spec.policies[0].event2");
  EXPECT_EQ(refused_field(job_with("  policies: [{event: PodFailed, action: AbortJob, timeout: soon}]\n")),
            "spec.policies[0].timeout");
  EXPECT_EQ(refused_field(job_with("", "      policies: [{event: Nope, action: AbortJob}]\n")),
            "spec.tasks[1].policies[0].event");
}

TEST(JobPolicies, TheSameEventMayAppearOnceInTheJobAndOnceInATask) {
  const protocol::JobSpec job = parse_volcano_job(job_with(
      "  policies: [{event: PodFailed, action: RestartJob}]\n",
      "      policies: [{event: PodFailed, action: AbortJob}]\n"));
  EXPECT_EQ(job.policies[0].action, "RestartJob");
  EXPECT_EQ(job.tasks[1].policies[0].action, "AbortJob");
}

TEST(JobFields, MaxRetryTtlAndMinSuccess) {
  const protocol::JobSpec job = parse_volcano_job(
      job_with("  maxRetry: 5\n  ttlSecondsAfterFinished: 60\n  minSuccess: 2\n", "      maxRetry: 1\n"));
  EXPECT_EQ(job.max_retry, 5);
  EXPECT_EQ(job.ttl_seconds_after_finished, 60);
  EXPECT_EQ(job.min_success, 2);
  EXPECT_EQ(job.tasks[1].max_retry, 1);
  const protocol::JobSpec defaults = parse_volcano_job(job_with(""));
  EXPECT_EQ(defaults.max_retry, 3);
  EXPECT_EQ(defaults.ttl_seconds_after_finished, -1);
  EXPECT_EQ(refused_field(job_with("  maxRetry: -1\n")), "spec.maxRetry");
  EXPECT_EQ(refused_field(job_with("  ttlSecondsAfterFinished: -5\n")), "spec.ttlSecondsAfterFinished");
  EXPECT_EQ(refused_field(job_with("  minSuccess: 5\n")), "spec.minSuccess");
}

TEST(JobFields, TaskMinAvailableSetsAnAbsentJobMinAvailable) {
  const protocol::JobSpec elastic = parse_volcano_job(job_with("", "      minAvailable: 1\n"));
  EXPECT_EQ(elastic.tasks[1].min_available, 1);
  EXPECT_EQ(elastic.tasks[0].min_available, -1);
  EXPECT_EQ(elastic.min_available, 2) << "master's 1 replica + worker's minAvailable 1";
  const protocol::JobSpec given = parse_volcano_job(job_with("  minAvailable: 4\n", "      minAvailable: 1\n"));
  EXPECT_EQ(given.min_available, 4);
  EXPECT_EQ(refused_field(job_with("", "      minAvailable: 4\n")), "spec.tasks[1].minAvailable");
}

TEST(JobFields, PluginsKeepTheirArguments) {
  const protocol::JobSpec job = parse_volcano_job(job_with(
      "  plugins:\n    ssh: []\n    svc: [\"--disable-network-policy=true\"]\n"
      "    pytorch: [\"--master=master\", \"--worker=worker\", \"--port=23456\"]\n"));
  ASSERT_EQ(job.plugins.size(), 3u);
  EXPECT_TRUE(job.plugins.at("ssh").empty());
  EXPECT_EQ(job.plugins.at("pytorch").at(2), "--port=23456");
  EXPECT_EQ(refused_field(job_with("  plugins: {horovod: []}\n")), "spec.plugins.horovod");
}

TEST(JobFields, RayIsAJobPluginWithItsArguments) {
  const protocol::JobSpec job = parse_volcano_job(
      job_with("  plugins:\n    ray: [\"--head=master\", \"--port\", \"6380\"]\n"));
  EXPECT_EQ(job.plugins.at("ray"), (std::vector<std::string>{"--head=master", "--port", "6380"}));
}

TEST(JobFields, DependsOnMustNameOtherTasksWithoutACycle) {
  const protocol::JobSpec job =
      parse_volcano_job(job_with("", "      dependsOn: {name: [master], iteration: any}\n"));
  EXPECT_EQ(job.tasks[1].depends_on.names, std::vector<std::string>{"master"});
  EXPECT_EQ(job.tasks[1].depends_on.iteration, "any");
  EXPECT_EQ(refused_field(job_with("", "      dependsOn: {name: [ps]}\n")),
            "spec.tasks[1].dependsOn.name[0]");
  EXPECT_EQ(refused_field(job_with("", "      dependsOn: {name: [worker]}\n")),
            "spec.tasks[1].dependsOn.name[0]");
  EXPECT_EQ(refused_field(job_with("", "      dependsOn: {name: [master], iteration: some}\n")),
            "spec.tasks[1].dependsOn.iteration");
  const std::string cycle =
      "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: cyc}\nspec:\n  tasks:\n"
      "    - {name: a, dependsOn: {name: [b]}, template: {spec: {containers: [{name: c}]}}}\n"
      "    - {name: b, dependsOn: {name: [a]}, template: {spec: {containers: [{name: c}]}}}\n";
  EXPECT_EQ(refused_field(cycle), "spec.tasks[0].dependsOn");
}

TEST(JobFields, NetworkTopologyAndPartitionPolicy) {
  const protocol::JobSpec job = parse_volcano_job(job_with(
      "  networkTopology: {mode: soft, highestTierAllowed: 2}\n",
      "      partitionPolicy: {totalPartitions: 3, partitionSize: 1, networkTopology: {highestTierAllowed: 1}}\n"));
  EXPECT_EQ(job.network_topology.mode, "soft");
  EXPECT_EQ(job.network_topology.highest_tier_allowed, 2);
  EXPECT_EQ(job.tasks[1].partition_policy.total_partitions, 3);
  EXPECT_EQ(job.tasks[1].partition_policy.network_topology.mode, "hard") << "Volcano's default mode";
  EXPECT_EQ(parse_volcano_job(job_with("")).network_topology.mode, "") << "not given";
  EXPECT_EQ(refused_field(job_with("  networkTopology: {mode: strict}\n")), "spec.networkTopology.mode");
  EXPECT_EQ(refused_field(job_with("", "      partitionPolicy: {totalPartitions: 2, partitionSize: 2}\n")),
            "spec.tasks[1].partitionPolicy.totalPartitions");
  EXPECT_EQ(refused_field(job_with("", "      topologyPolicy: numa-please\n")), "spec.tasks[1].topologyPolicy");
}

TEST(JobFields, GenerateNameLeavesTheNameToTheHub) {
  const protocol::JobSpec job = parse_volcano_job(job_with("", "", "  generateName: train-\n  labels: {team: nlp}\n"));
  EXPECT_EQ(job.name, "");
  EXPECT_EQ(job.generate_name, "train-");
  EXPECT_EQ(job.labels.at("team"), "nlp");
  EXPECT_EQ(refused_field(job_with("", "", "  generateName: Train-\n")), "metadata.generateName");
  EXPECT_EQ(refused_field(job_with("", "", "  labels: {a: b}\n")), "metadata.name");
}

}  // namespace
}  // namespace gantry::config
