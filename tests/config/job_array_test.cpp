// Job arrays (gantry.io/array): the index syntax, the limits and what each
// element's spec, pod template and kept YAML hold.
#include "config/job_array.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hub/field_error.hpp"

namespace gantry::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::string kField = "metadata.annotations.gantry.io/array";

std::vector<std::int32_t> indices(const std::string& text) {
  return parse_array_indices(text, kField);
}

std::string refusal(const std::string& text) {
  try {
    indices(text);
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), kField);
    return e.what();
  }
  ADD_FAILURE() << text << " was accepted";
  return "";
}

TEST(ArrayIndices, ReadsSlurmsRangesListsAndStepsAscendingEachOnce) {
  EXPECT_THAT(indices("0-3"), ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(indices("7"), ElementsAre(7));
  EXPECT_THAT(indices("1,3,5-7"), ElementsAre(1, 3, 5, 6, 7));
  EXPECT_THAT(indices("0-9:4"), ElementsAre(0, 4, 8));
  EXPECT_THAT(indices("5-6,0,5"), ElementsAre(0, 5, 6));
  EXPECT_EQ(indices("0-9999").size(), kMaxArrayTasks);
}

TEST(ArrayIndices, RefusesWhatSlurmRefusesOrGantryDoesNotDoNamingTheLimit) {
  EXPECT_THAT(refusal("0-10000"), HasSubstr("names more than 10000 jobs, the limit"));
  EXPECT_THAT(refusal("0-15%4"), HasSubstr("(%N) is not supported"));
  EXPECT_THAT(refusal("5-1"), HasSubstr("range 5-1 ends before it starts"));
  EXPECT_THAT(refusal("0-9:0"), HasSubstr("a step must be at least 1"));
  EXPECT_THAT(refusal("1000000"), HasSubstr("index 1000000 exceeds the limit 999999"));
  for (const char* bad : {"", "a", "1,", ",1", "-1", "1-", "1--2", "1-2:", " 1", "0x10", "1.5"})
    EXPECT_THAT(refusal(bad), HasSubstr("must list indices and ranges")) << bad;
}

const char* kArrayJob = R"(apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: sweep
  labels:
    team: vision
  annotations:
    gantry.io/array: "2-4:2"
    note: "007"
spec:
  tasks:
    - name: trial
      replicas: 1
      template:
        spec:
          initContainers:
            - name: fetch
              image: busybox
          containers:
            - name: train
              image: trainer
              env:
                - name: GANTRY_ARRAY_TASK_ID
                  value: "stale"
                - name: LR
                  value: "0.1"
              resources:
                requests: {cpu: "1"}
)";

std::map<std::string, std::string> env_of(const protocol::ContainerSpec& container) {
  std::map<std::string, std::string> env;
  for (const protocol::EnvVar& var : container.env) env[var.name] = var.value;
  return env;
}

TEST(JobDocument, AJobWithoutAnArrayIsItselfAndKeepsItsText) {
  const std::string line = "    gantry.io/array: \"2-4:2\"\n";
  std::string yaml = kArrayJob;
  yaml.erase(yaml.find(line), line.size());
  const auto jobs = read_job_document(yaml, default_priority_classes());
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].spec.name, "sweep");
  EXPECT_EQ(jobs[0].yaml, yaml);
}

TEST(JobDocument, AnArrayIsAJobPerIndexNamedLabelledAndToldItsIndex) {
  const auto jobs = read_job_document(kArrayJob, default_priority_classes());
  ASSERT_EQ(jobs.size(), 2u);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const protocol::JobSpec& spec = jobs[i].spec;
    const std::string index = i == 0 ? "2" : "4";
    EXPECT_EQ(spec.name, "sweep-" + index);
    EXPECT_EQ(spec.labels.at(kArrayJobLabel), "sweep");
    EXPECT_EQ(spec.labels.at("team"), "vision");
    EXPECT_EQ(spec.annotations.at(kArrayIndexAnnotation), index);
    EXPECT_EQ(spec.annotations.count(kArrayAnnotation), 0u) << "an element is not an array";
    EXPECT_EQ(spec.annotations.at("note"), "007");
    const std::map<std::string, std::string> expected{
        {"GANTRY_ARRAY_JOB_NAME", "sweep"}, {"GANTRY_ARRAY_TASK_ID", index},
        {"GANTRY_ARRAY_TASK_COUNT", "2"},   {"GANTRY_ARRAY_TASK_MIN", "2"},
        {"GANTRY_ARRAY_TASK_MAX", "4"},     {"LR", "0.1"}};
    ASSERT_EQ(spec.tasks.size(), 1u);
    EXPECT_EQ(env_of(spec.tasks[0].containers.at(0)), expected);
    // The kubernetes executor starts pods from the template: it has them too, as strings.
    const auto pod = nlohmann::json::parse(spec.tasks[0].pod_template)["spec"];
    const auto& env = pod["containers"][0]["env"];
    ASSERT_EQ(env.size(), 6u) << env.dump();
    EXPECT_EQ(env[0], (nlohmann::json{{"name", "LR"}, {"value", "0.1"}}));
    EXPECT_EQ(env[2], (nlohmann::json{{"name", "GANTRY_ARRAY_TASK_ID"}, {"value", index}}));
    EXPECT_EQ(pod["initContainers"][0]["env"][1]["value"], index);
  }
}

TEST(JobDocument, AnElementsKeptYamlReadsBackAsTheSameJob) {
  for (const SubmittedDocumentJob& job : read_job_document(kArrayJob, default_priority_classes())) {
    const protocol::JobSpec again = parse_volcano_job(job.yaml);
    EXPECT_EQ(again.name, job.spec.name);
    EXPECT_EQ(again.labels, job.spec.labels);
    EXPECT_EQ(again.annotations, job.spec.annotations);
    EXPECT_EQ(env_of(again.tasks[0].containers[0]), env_of(job.spec.tasks[0].containers[0]));
    EXPECT_EQ(nlohmann::json::parse(again.tasks[0].pod_template),
              nlohmann::json::parse(job.spec.tasks[0].pod_template));
  }
}

TEST(JobDocument, AnArrayNeedsANameAndRoomInTheRequest) {
  std::string unnamed = kArrayJob;
  unnamed.replace(unnamed.find("name: sweep"), 11, "generateName: sweep-");
  try {
    read_job_document(unnamed, default_priority_classes());
    FAIL() << "an array without a name was accepted";
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), "metadata.name");
  }
  try {
    read_job_document(kArrayJob, default_priority_classes(), 1);
    FAIL() << "two jobs fit where one was left";
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), kField);
    EXPECT_THAT(e.what(), HasSubstr("2 jobs exceed the 1 left in this request"));
  }
}

TEST(JobDocument, AnElementNameThatIsNotAValidNameRefusesTheDocument) {
  // 252 characters (DNS labels of at most 63) are a name; its element's 254 are not.
  const std::string name = std::string(62, 'a') + "." + std::string(62, 'a') + "." +
                           std::string(62, 'a') + "." + std::string(63, 'a');
  std::string long_name = kArrayJob;
  long_name.replace(long_name.find("name: sweep"), 11, "name: " + name);
  ASSERT_NO_THROW(parse_volcano_job(long_name)) << "the array's own name is valid";
  try {
    read_job_document(long_name, default_priority_classes());
    FAIL() << "an element named " << name << "-2 was accepted";
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), "metadata.name");
    EXPECT_EQ(e.value(), name + "-2");
  }
}

TEST(JobDocument, TheExampleArrayIsFourJobs) {
  std::ifstream file(std::string(GANTRY_SOURCE_DIR) + "/examples/arrays/sweep.yaml");
  std::stringstream text;
  text << file.rdbuf();
  const auto jobs = read_job_document(text.str(), default_priority_classes());
  ASSERT_EQ(jobs.size(), 4u);
  EXPECT_EQ(jobs[3].spec.name, "sweep-3");
}

}  // namespace
}  // namespace gantry::config
