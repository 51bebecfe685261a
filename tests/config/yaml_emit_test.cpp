// emit_yaml writes a document that loads back to the same values, where
// yaml-cpp's own Dump turns quoted "007" or "true" into a number or a boolean.
#include "config/yaml_emit.hpp"

#include <gtest/gtest.h>

#include "config/yaml_fields.hpp"
#include "config/yaml_json.hpp"

namespace gantry::config {
namespace {

nlohmann::json as_json(const std::string& text) {
  return yaml_to_json(load_document(text), "");
}

TEST(EmitYaml, ADocumentReadsBackToTheSameValues) {
  const std::string text = R"(a: "007"
b: 7
c: [x, 'y', "true", on, 1.5, ~]
d: |
  two
  lines
"key with: colon": {nested: ["", "#not a comment"]}
e: {}
f: []
)";
  const std::string emitted = emit_yaml(load_document(text));
  EXPECT_EQ(as_json(emitted), as_json(text)) << emitted;
  EXPECT_EQ(as_json(emitted)["a"], "007");
  EXPECT_EQ(as_json(emitted)["c"][2], "true");
}

TEST(EmitYaml, AStringScalarStaysAStringWhateverItsText) {
  YAML::Node node(YAML::NodeType::Map);
  node["n"] = string_scalar("42");
  node["t"] = string_scalar("true");
  const nlohmann::json back = as_json(emit_yaml(node));
  EXPECT_EQ(back, (nlohmann::json{{"n", "42"}, {"t", "true"}}));
}

}  // namespace
}  // namespace gantry::config
