// A task's pod template kept as JSON: typed as Kubernetes' YAML decoder types
// it, so that what reaches the API server is what the user wrote.
#include "config/yaml_json.hpp"

#include <gtest/gtest.h>

#include "config/volcano_job.hpp"
#include "hub/field_error.hpp"

namespace gantry::config {
namespace {

using nlohmann::json;

json convert(const std::string& yaml) {
  return yaml_to_json(YAML::Load(yaml), "template");
}

TEST(YamlJson, PlainScalarsTakeTheCoreSchemasTypesAndQuotedOnesStayStrings) {
  const json out = convert(R"(
port: 8080
negative: -3
ratio: 0.5
on: true
off: False
nothing: ~
empty:
quoted: "8080"
single: 'true'
image: pytorch/pytorch:2.3
quantity: 500m
version: 1.2.3
)");
  EXPECT_EQ(out["port"], 8080);
  EXPECT_EQ(out["negative"], -3);
  EXPECT_EQ(out["ratio"], 0.5);
  EXPECT_EQ(out["on"], true);
  EXPECT_EQ(out["off"], false);
  EXPECT_TRUE(out["nothing"].is_null());
  EXPECT_TRUE(out["empty"].is_null());
  EXPECT_EQ(out["quoted"], "8080");
  EXPECT_EQ(out["single"], "true");
  EXPECT_EQ(out["image"], "pytorch/pytorch:2.3");
  EXPECT_EQ(out["quantity"], "500m");
  EXPECT_EQ(out["version"], "1.2.3");
}

TEST(YamlJson, SequencesAndMapsNest) {
  const json out = convert("volumes: [{name: data, emptyDir: {}}, {name: shm}]\nargs: [-c, 'x y']");
  EXPECT_EQ(out["volumes"][0]["name"], "data");
  EXPECT_TRUE(out["volumes"][0]["emptyDir"].is_object());
  EXPECT_EQ(out["args"], (json{"-c", "x y"}));
}

TEST(YamlJson, AJobKeepsEachTasksWholeTemplate) {
  const protocol::JobSpec job = parse_volcano_job(R"(
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: j}
spec:
  tasks:
  - name: w
    template:
      metadata: {labels: {team: a}}
      spec:
        tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
        containers: [{name: c, image: i, ports: [{containerPort: 23456}]}]
)");
  const json kept = json::parse(job.tasks.at(0).pod_template);
  EXPECT_EQ(kept["metadata"]["labels"]["team"], "a");
  EXPECT_EQ(kept["spec"]["containers"][0]["ports"][0]["containerPort"], 23456);
  ASSERT_EQ(job.tasks[0].tolerations.size(), 1u);
  EXPECT_EQ(job.tasks[0].tolerations[0].op, "Exists");
}

TEST(YamlJson, ATolerationKubernetesWouldRefuseIsRefusedNamingTheField) {
  const std::string job = R"(
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: j}
spec:
  tasks:
  - name: w
    template:
      spec:
        tolerations: [{key: gpu, operator: Exists, value: x}]
        containers: [{name: c, image: i}]
)";
  try {
    parse_volcano_job(job);
    FAIL() << "accepted a value with operator Exists";
  } catch (const hub::FieldError& error) {
    EXPECT_EQ(error.field(), "spec.tasks[0].template.spec.tolerations[0].value");
  }
}

// Plain scalars are typed without std::regex, whose libstdc++ matcher
// recurses per character: a 1 MB number used to be a stack overflow.
TEST(YamlJson, HugePlainNumbersAreTypedWithoutRecursionAndKeptAsText) {
  const std::string digits(1 << 20, '7');
  const json out = convert("big: " + digits + "\nfloat: 0." + digits + "\nhuge: 1e999\n");
  EXPECT_EQ(out["big"], digits);  // out of int64's range: the text, as before
  EXPECT_TRUE(out["float"].is_number_float());
  EXPECT_EQ(out["huge"], "1e999");  // out of a double's range: the text
  EXPECT_EQ(convert("a: .5\nb: -1.\nc: 1.2.3\nd: +7\n"),
            (json{{"a", 0.5}, {"b", -1.0}, {"c", "1.2.3"}, {"d", 7}}));
}

}  // namespace
}  // namespace gantry::config
