#include <gtest/gtest.h>

#include "config/volcano_job.hpp"
#include "hub/field_error.hpp"

namespace gantry::config {
namespace {

const char* kPytorchJob = R"(
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: resnet-ddp
  annotations:
    gantry.io/sim-duration: "30"
spec:
  queue: default
  minAvailable: 3
  priorityClassName: high-priority
  schedulerName: volcano
  plugins:
    pytorch: ["--master=master", "--worker=worker", "--port=23456"]
  tasks:
    - name: master
      replicas: 1
      template:
        spec:
          nodeSelector:
            nvidia.com/gpu.product: A100
          containers:
            - name: trainer
              image: pytorch/pytorch:2.1
              command: ["python", "train.py"]
              args: ["--epochs", "1"]
              env:
                - name: NCCL_DEBUG
                  value: INFO
              resources:
                requests: {cpu: "4", memory: 16Gi, nvidia.com/gpu: 1}
    - name: worker
      replicas: 2
      template:
        spec:
          containers:
            - name: trainer
              image: pytorch/pytorch:2.1
              resources:
                limits: {cpu: 500m, nvidia.com/gpu: "2"}
)";

TEST(VolcanoJob, ParsesARealisticJob) {
  const protocol::JobSpec job = parse_volcano_job(kPytorchJob);
  EXPECT_EQ(job.name, "resnet-ddp");
  EXPECT_EQ(job.queue, "default");
  EXPECT_EQ(job.min_available, 3);
  EXPECT_EQ(job.priority_class, "high-priority");
  EXPECT_EQ(job.priority, 1000);
  EXPECT_EQ(job.annotations.at("gantry.io/sim-duration"), "30");
  ASSERT_EQ(job.tasks.size(), 2u);
  const protocol::TaskSpec& master = job.tasks[0];
  EXPECT_EQ(master.replicas, 1);
  EXPECT_EQ(master.node_selector.at("nvidia.com/gpu.product"), "A100");
  ASSERT_EQ(master.containers.size(), 1u);
  EXPECT_EQ(master.containers[0].command, (std::vector<std::string>{"python", "train.py"}));
  EXPECT_EQ(master.containers[0].args, (std::vector<std::string>{"--epochs", "1"}));
  EXPECT_EQ(master.containers[0].env.at(0).name, "NCCL_DEBUG");
  EXPECT_EQ(master.containers[0].requests.at("cpu"), 4000);
  EXPECT_EQ(master.containers[0].requests.at("memory"), 16LL * 1024 * 1024 * 1024 * 1000);
  EXPECT_EQ(master.containers[0].requests.at("nvidia.com/gpu"), 1000);
  // A limit without a request sets the request, as in Kubernetes.
  EXPECT_EQ(job.tasks[1].containers[0].requests.at("cpu"), 500);
  EXPECT_EQ(job.tasks[1].containers[0].requests.at("nvidia.com/gpu"), 2000);
}

// Replaces the first occurrence of `from` in the sample job.
std::string job_with(const std::string& from, const std::string& to) {
  std::string text = kPytorchJob;
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

void expect_field_error(const std::string& yaml, const std::string& field, const std::string& value) {
  try {
    parse_volcano_job(yaml);
    ADD_FAILURE() << "accepted; expected an error on " << field;
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_EQ(e.value(), value) << e.what();
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos);
  }
}

TEST(VolcanoJob, BadFieldsAreNamedWithTheirValue) {
  expect_field_error(job_with("replicas: 2", "replicas: two"), "spec.tasks[1].replicas", "two");
  expect_field_error(job_with("replicas: 2", "replicas: 0"), "spec.tasks[1].replicas", "0");
  expect_field_error(job_with("memory: 16Gi", "memory: 16Gb"),
                     "spec.tasks[0].template.spec.containers[0].resources.requests.memory", "16Gb");
  expect_field_error(job_with("minAvailable: 3", "minAvailable: 4"), "spec.minAvailable", "4");
  expect_field_error(job_with("minAvailable: 3", "minAvailble: 3"), "spec.minAvailble", "");
  expect_field_error(job_with("high-priority", "urgent"), "spec.priorityClassName", "urgent");
  expect_field_error(job_with("name: resnet-ddp", "name: ResNet_DDP"), "metadata.name", "ResNet_DDP");
  expect_field_error(job_with("kind: Job", "kind: Deployment"), "kind", "Deployment");
  expect_field_error(job_with("batch.volcano.sh/v1alpha1", "apps/v1"), "apiVersion", "apps/v1");
  expect_field_error(job_with("name: worker", "name: master"), "spec.tasks[1].name", "master");
}

TEST(VolcanoJob, ReadsEachTasksActiveDeadlineSeconds) {
  const std::string worker_pod = "replicas: 2\n      template:\n        spec:\n";
  const protocol::JobSpec job = parse_volcano_job(
      job_with(worker_pod, worker_pod + "          activeDeadlineSeconds: 5400\n"));
  EXPECT_EQ(job.tasks[0].active_deadline_seconds, 0) << "not given: none";
  EXPECT_EQ(job.tasks[1].active_deadline_seconds, 5400);
}

TEST(VolcanoJob, ActiveDeadlineSecondsMustBeAPositiveWholeNumber) {
  const std::string field = "spec.tasks[0].template.spec.activeDeadlineSeconds";
  for (const std::string value : {"0", "-5", "1.5", "1h", "3153600001"}) {
    expect_field_error(job_with("          nodeSelector:", "          activeDeadlineSeconds: " +
                                                               value + "\n          nodeSelector:"),
                       field, value);
  }
}

TEST(VolcanoJob, MissingPiecesAreNamed) {
  expect_field_error("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nspec: {}\n", "metadata.name", "");
  expect_field_error("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: a}\nspec: {}\n",
                     "spec.tasks", "");
  expect_field_error("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: a}\n"
                     "spec: {tasks: [{name: t, replicas: 1, template: {spec: {}}}]}\n",
                     "spec.tasks[0].template.spec.containers", "");
}

TEST(VolcanoJob, SyntaxErrorsSayWhere) {
  try {
    parse_volcano_job("apiVersion: [unclosed\n");
    FAIL();
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), "yaml");
    // Where it is, as a place, not as a value the user wrote: no (got "line 2, column 1").
    EXPECT_EQ(e.value(), "");
    EXPECT_NE(std::string(e.what()).find(" at line 2, column 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_volcano_job("just a string"), hub::FieldError);
}

}  // namespace
}  // namespace gantry::config

#include <filesystem>
#include <fstream>
#include <sstream>

namespace gantry::config {
namespace {

// examples/jobs (what scripts/up.sh submits) and examples/tour (the README's).
TEST(VolcanoJob, EveryExampleJobParses) {
  const std::filesystem::path examples = std::filesystem::path(GANTRY_SOURCE_DIR) / "examples";
  int parsed = 0;
  for (const auto& dir : {examples / "jobs", examples / "tour"})
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".yaml") continue;
      std::ifstream file(entry.path());
      std::stringstream text;
      text << file.rdbuf();
      const protocol::JobSpec job = parse_volcano_job(text.str());
      EXPECT_EQ(job.name + ".yaml", entry.path().filename().string()) << "file named after its job";
      ++parsed;
    }
  EXPECT_GE(parsed, 7);
}

}  // namespace
}  // namespace gantry::config
