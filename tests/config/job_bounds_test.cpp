// Job bounds (config/job_bounds.hpp, config/kube_names.hpp): names, labels,
// quantities, tasks and replicas past their limits are refused while the
// Volcano Job is parsed, each error naming the field path and the limit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "config/input_limits.hpp"
#include "config/volcano_job.hpp"
#include "config/volcano_queue.hpp"
#include "hub/field_error.hpp"

namespace gantry::config {
namespace {

using ::testing::HasSubstr;

struct JobParts {
  std::string metadata = "name: train";
  std::string spec_extra;
  std::string tasks;
};

std::string task(const std::string& name, std::int64_t replicas,
                 const std::string& requests = "{cpu: 1}") {
  return "    - name: " + name + "\n      replicas: " + std::to_string(replicas) +
         "\n      template:\n        spec:\n          containers:\n"
         "            - {name: c, image: busybox, resources: {requests: " +
         requests + "}}\n";
}

std::string job(const JobParts& parts) {
  return "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  " + parts.metadata +
         "\nspec:\n" + parts.spec_extra + "  tasks:\n" +
         (parts.tasks.empty() ? task("main", 1) : parts.tasks);
}

std::string error_of(const std::string& yaml) {
  try {
    parse_volcano_job(yaml);
  } catch (const hub::FieldError& error) {
    return error.what();
  }
  return "no error";
}

TEST(JobBounds, AnOrdinaryJobPasses) {
  EXPECT_EQ(error_of(job({})), "no error");
}

TEST(JobBounds, ReplicasPerTaskAreLimited) {
  JobParts parts;
  parts.tasks = task("a", 1) + task("b", 1) + task("c", 1) + task("d", 2'000'000);
  EXPECT_EQ(error_of(job(parts)), "spec.tasks[3].replicas: 2000000 exceeds the limit 100000");
  parts.tasks = task("a", kMaxReplicasPerTask);
  EXPECT_EQ(error_of(job(parts)), "no error");
}

TEST(JobBounds, ReplicasOfTheWholeJobAreLimited) {
  JobParts parts;
  parts.tasks = task("a", 60'000) + task("b", 60'000);
  EXPECT_EQ(error_of(job(parts)), "spec.tasks: 120000 replicas in all exceed the limit 100000");
}

TEST(JobBounds, TasksPerJobAreLimited) {
  JobParts parts;
  for (std::size_t i = 0; i <= kMaxTasksPerJob; ++i)
    parts.tasks += task("t" + std::to_string(i), 1);
  EXPECT_EQ(error_of(job(parts)), "spec.tasks: 257 tasks exceed the limit 256");
}

TEST(JobBounds, AQuantityIsLimitedAndAJobsWholeRequestCannotOverflow) {
  JobParts parts;
  parts.tasks = task("a", 1, "{memory: 2P}");
  EXPECT_EQ(error_of(job(parts)),
            "spec.tasks[0].template.spec.containers[0].resources.requests.memory: exceeds the "
            "limit of 1000000000000000 units (got \"2P\")");
  // Each quantity within its limit, but times 100,000 replicas past int64.
  parts.tasks = task("a", 100'000, "{memory: 500Ti}");
  EXPECT_THAT(error_of(job(parts)),
              HasSubstr("spec.tasks: the job's whole memory request (each task's replicas times "
                        "its containers' requests) exceeds the limit of"));
}

TEST(JobBounds, NamesFollowKubernetesRules) {
  JobParts parts;
  parts.metadata = "name: " + std::string(254, 'a');
  EXPECT_THAT(error_of(job(parts)), HasSubstr("metadata.name: must be a DNS-1123 subdomain of at "
                                              "most 253 characters"));
  parts.metadata = "name: a..b";
  EXPECT_THAT(error_of(job(parts)), HasSubstr("metadata.name: must be a DNS-1123 subdomain"));
  parts = {};
  parts.tasks = task("has.dot", 1);
  EXPECT_THAT(error_of(job(parts)),
              HasSubstr("spec.tasks[0].name: must be a DNS-1123 label of at most 63"));
  parts.tasks = task(std::string(64, 'w'), 1);
  EXPECT_THAT(error_of(job(parts)), HasSubstr("spec.tasks[0].name: must be a DNS-1123 label"));
  parts = {};
  parts.spec_extra = "  queue: Research_Team\n";
  EXPECT_THAT(error_of(job(parts)), HasSubstr("spec.queue: must be a DNS-1123 subdomain"));
}

TEST(JobBounds, AHugeNameIsRefusedWithABoundedMessage) {
  JobParts parts;
  parts.metadata = "name: " + std::string(1 << 20, 'a');
  const std::string error = error_of(job(parts));
  EXPECT_THAT(error, HasSubstr("metadata.name: must be a DNS-1123 subdomain"));
  EXPECT_THAT(error, HasSubstr("... (1048576 bytes)"));
  EXPECT_LT(error.size(), 1000u);
}

TEST(JobBounds, LabelsFollowKubernetesRules) {
  JobParts parts;
  parts.metadata = "name: train\n  labels: {example.com/team: research, tier: \"\"}";
  EXPECT_EQ(error_of(job(parts)), "no error");
  parts.metadata = "name: train\n  labels: {team: \"" + std::string(64, 'v') + "\"}";
  EXPECT_THAT(error_of(job(parts)), HasSubstr("metadata.labels.team: a label value must be empty "
                                              "or at most 63"));
  parts.metadata = "name: train\n  labels: {\"Bad Key\": x}";
  EXPECT_THAT(error_of(job(parts)), HasSubstr("metadata.labels.Bad Key: the key's name must be"));
  parts.metadata = "name: train\n  labels: {\"UPPER.example/x\": y}";
  EXPECT_THAT(error_of(job(parts)), HasSubstr("the key's prefix must be a DNS subdomain"));
  std::string many = "name: train\n  labels: {";
  for (std::size_t i = 0; i <= kMaxLabels; ++i) many += "k" + std::to_string(i) + ": v,";
  many += "}";
  parts.metadata = many;
  EXPECT_EQ(error_of(job(parts)), "metadata.labels: 257 entries exceed the limit 256");
}

TEST(JobBounds, AnnotationsAreLimitedInTotalSize) {
  JobParts parts;
  parts.metadata = "name: train\n  annotations: {note: \"" + std::string(300'000, 'n') + "\"}";
  EXPECT_EQ(error_of(job(parts)),
            "metadata.annotations: 300004 bytes of keys and values exceed the limit 262144");
}

TEST(JobBounds, NodeSelectorKeysAreLabelKeys) {
  JobParts parts;
  parts.tasks =
      "    - name: main\n      template:\n        spec:\n          nodeSelector: {\"bad key\": "
      "x}\n          containers: [{name: c, image: busybox}]\n";
  EXPECT_THAT(error_of(job(parts)),
              HasSubstr("spec.tasks[0].template.spec.nodeSelector.bad key: the key's name"));
}

TEST(JobBounds, QueueNamesAreDnsSubdomains) {
  try {
    parse_volcano_queue(
        "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: Big_Queue}\n");
    FAIL() << "accepted";
  } catch (const hub::FieldError& error) {
    EXPECT_EQ(error.field(), "metadata.name");
    EXPECT_THAT(error.what(), HasSubstr("DNS-1123 subdomain"));
  }
}

}  // namespace
}  // namespace gantry::config
