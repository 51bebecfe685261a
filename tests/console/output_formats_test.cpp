// get -o yaml reads back as the -o json it comes from: every string stays a
// string, even one YAML would take for a number, a boolean or a null.
#include "console/output_formats.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

namespace gantry::console {
namespace {

TEST(YamlText, ReadsBackAsTheJsonItWasWrittenFrom) {
  const auto json = nlohmann::ordered_json::parse(R"([
    {"name": "123", "phase": "true", "reason": "", "queue": "null", "note": "on",
     "gpus": 8, "share": 0.25, "ready": true, "parent": null, "clusters": [], "labels": {},
     "parts": [{"cluster": "east", "replicas": 2}], "message": "a: b # c\nsecond line"}
  ])");
  const YAML::Node read = YAML::Load(yaml_text(json));
  ASSERT_TRUE(read.IsSequence());
  const YAML::Node job = read[0];
  for (const char* field : {"name", "phase", "reason", "queue", "note"}) {
    EXPECT_EQ(job[field].Tag(), "!") << field << " was not quoted: " << yaml_text(json);
    EXPECT_EQ(job[field].as<std::string>(), json[0][field].get<std::string>()) << field;
  }
  EXPECT_EQ(job["gpus"].as<int>(), 8);
  EXPECT_DOUBLE_EQ(job["share"].as<double>(), 0.25);
  EXPECT_TRUE(job["ready"].as<bool>());
  EXPECT_TRUE(job["parent"].IsNull());
  EXPECT_TRUE(job["clusters"].IsSequence());
  EXPECT_EQ(job["clusters"].size(), 0u);
  EXPECT_TRUE(job["labels"].IsMap());
  EXPECT_EQ(job["parts"][0]["cluster"].as<std::string>(), "east");
  EXPECT_EQ(job["parts"][0]["replicas"].as<int>(), 2);
  EXPECT_EQ(job["message"].as<std::string>(), "a: b # c\nsecond line");
}

TEST(NameLines, OneKindSlashNamePerObject) {
  const auto json = nlohmann::ordered_json::parse(R"([{"name": "east"}, {"name": "west"}])");
  EXPECT_EQ(name_lines(json, "cluster"), "cluster/east\ncluster/west\n");
  EXPECT_EQ(name_lines(nlohmann::ordered_json::array(), "cluster"), "");
}

}  // namespace
}  // namespace gantry::console
