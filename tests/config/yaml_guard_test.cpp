// The YAML guard (config/yaml_guard.hpp): every limit of input_limits.hpp is
// refused with an error that names the field and the limit, before yaml-cpp
// builds a tree, and legitimate inputs (anchors, empty documents) still load.
#include "config/yaml_guard.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "config/volcano_job.hpp"
#include "hub/field_error.hpp"

namespace gantry::config {
namespace {

using ::testing::HasSubstr;

std::string error_of(std::string_view text, const YamlLimits& limits = {}) {
  try {
    load_yaml_documents(text, limits);
  } catch (const hub::FieldError& error) {
    return error.what();
  }
  return "no error";
}

// A Volcano Job whose one container's args reuse `copies` times an anchored
// string of `string_bytes` bytes: the alias bomb (130 KB of manifest,
// 1 GB once expanded).
std::string alias_bomb_job(std::size_t string_bytes, std::size_t copies) {
  std::string args = "[";
  for (std::size_t i = 0; i < copies; ++i) args += i == 0 ? "*big" : ",*big";
  args += "]";
  return "apiVersion: batch.volcano.sh/v1alpha1\n"
         "kind: Job\n"
         "metadata: {name: bomb}\n"
         "x-padding: &big " +
         std::string(string_bytes, 'a') +
         "\n"
         "spec:\n"
         "  tasks:\n"
         "    - name: main\n"
         "      template:\n"
         "        spec:\n"
         "          containers:\n"
         "            - name: c\n"
         "              image: busybox\n"
         "              args: " +
         args + "\n";
}

TEST(YamlGuard, LoadsOrdinaryInputWithAnchorsAndAliases) {
  const auto documents = load_yaml_documents(
      "defaults: &defaults {cpu: 1, memory: 1Gi}\n"
      "a: *defaults\n"
      "b: *defaults\n");
  ASSERT_EQ(documents.size(), 1u);
  EXPECT_EQ(documents[0]["b"]["memory"].as<std::string>(), "1Gi");
}

TEST(YamlGuard, TheAliasBombIsRefusedQuicklyNamingTheFieldAndTheLimit) {
  const std::string bomb = alias_bomb_job(100'000, 10'000);
  ASSERT_LT(bomb.size(), 200'000u);  // small on the wire, ~1 GB expanded
  const auto start = std::chrono::steady_clock::now();
  try {
    parse_volcano_job(bomb);
    FAIL() << "the alias bomb was accepted";
  } catch (const hub::FieldError& error) {
    EXPECT_THAT(error.what(), HasSubstr("spec.tasks[0].template.spec.containers[0].args["));
    EXPECT_THAT(error.what(), HasSubstr(std::to_string(kMaxYamlExpandedBytes) + " bytes"));
    EXPECT_THAT(error.what(), HasSubstr("(the limit)"));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(YamlGuard, AliasCountIsLimited) {
  std::string text = "a: &x 1\nlist: [";
  for (std::size_t i = 0; i <= kMaxYamlAliases; ++i) text += i == 0 ? "*x" : ",*x";
  text += "]\n";
  EXPECT_THAT(error_of(text),
              HasSubstr("list[" + std::to_string(kMaxYamlAliases) + "]: more than " +
                        std::to_string(kMaxYamlAliases) + " aliases"));
}

TEST(YamlGuard, NestedAliasesMultiplyAndAreCaughtByTheExpandedSize) {
  // The classic "billion laughs": each level names ten of the one before.
  std::string text = "l0: &l0 [" + std::string(1000, 'x') + "]\n";
  for (int level = 1; level <= 6; ++level) {
    const std::string prev = "*l" + std::to_string(level - 1);
    text += "l" + std::to_string(level) + ": &l" + std::to_string(level) + " [" + prev;
    for (int i = 1; i < 10; ++i) text += "," + prev;
    text += "]\n";
  }
  EXPECT_THAT(error_of(text), HasSubstr("the input expands (aliases counted as copies)"));
}

TEST(YamlGuard, AnAliasInsideTheNodeItNamesIsRefused) {
  EXPECT_THAT(error_of("loop: &a [1, *a]\n"), HasSubstr("loop[1]: alias at line 1"));
  EXPECT_THAT(error_of("loop: &a {self: *a}\n"), HasSubstr("refers to a node that contains it"));
}

TEST(YamlGuard, DuplicateKeysAreRefusedWithTheKeyAndItsLines) {
  const std::string text =
      "metadata:\n"
      "  labels:\n"
      "    app: one\n"
      "    tier: web\n"
      "    app: two\n";
  EXPECT_EQ(error_of(text),
            "metadata.labels.app: duplicate mapping key at line 5 (first at line 3)");
  EXPECT_THAT(error_of("{a: 1, \"a\": 2}\n"), HasSubstr("a: duplicate mapping key"));
  // The same key in two different mappings is fine.
  EXPECT_EQ(error_of("x: {a: 1}\ny: {a: 2}\n"), "no error");
}

TEST(YamlGuard, MappingsAndListsAsKeysAreRefusedAsKubernetesRefusesThem) {
  EXPECT_EQ(error_of("labels:\n  ? [a, b]\n  : x\n"),
            "labels: a mapping key must be a single value, not a mapping or list (at line 2, "
            "column 5)");
  EXPECT_THAT(error_of("base: &b {a: 1}\nuse: {*b : x}\n"),
              HasSubstr("use: a mapping key must be a single value"));
  EXPECT_EQ(error_of("name: &n app\nlabels: {*n : x}\n"), "no error");  // an aliased scalar
}

TEST(YamlGuard, DeepNestingIsRefusedBeforeAnyTreeIsBuilt) {
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  EXPECT_THAT(error_of(deep), HasSubstr("nested deeper than " + std::to_string(kMaxYamlDepth) +
                                        " levels at line 1, column 65 (the limit)"));
  std::string within;
  for (std::size_t i = 0; i < kMaxYamlDepth; ++i) within += "[";
  for (std::size_t i = 0; i < kMaxYamlDepth; ++i) within += "]";
  EXPECT_EQ(error_of(within), "no error");
}

// A document just under the size limit, without aliases, stays within the
// expanded-size limit: the limits refuse attacks, not large honest inputs.
TEST(YamlGuard, ALargeHonestInputPasses) {
  std::string text = "args:\n";
  while (text.size() < kMaxYamlBytes - 64) text += "- a\n";
  const auto start = std::chrono::steady_clock::now();
  const auto documents = load_yaml_documents(text);
  ASSERT_EQ(documents.size(), 1u);
  EXPECT_GT(documents[0]["args"].size(), 1'000'000u);
  EXPECT_LT(std::chrono::steady_clock::now() - start,
            std::chrono::seconds(60));  // linear, not quadratic
}

TEST(YamlGuard, TheInputSizeIsLimited) {
  const std::string big = "a: " + std::string(kMaxYamlBytes, 'x') + "\n";
  EXPECT_EQ(error_of(big), "yaml: the input is " + std::to_string(big.size()) +
                               " bytes, over the limit of " + std::to_string(kMaxYamlBytes) +
                               " bytes");
}

TEST(YamlGuard, InvalidUtf8AndNulBytesAreRefusedWithTheirPosition) {
  EXPECT_EQ(error_of("a: ok\nb: caf\xC3\n"), "yaml: invalid UTF-8 at line 2, column 7");
  EXPECT_EQ(error_of("a: \xED\xA0\x80\n"),
            "yaml: invalid UTF-8 at line 1, column 4");                             // a surrogate
  EXPECT_EQ(error_of("a: \xC0\xAF\n"), "yaml: invalid UTF-8 at line 1, column 4");  // overlong
  EXPECT_EQ(error_of(std::string("a: b\0c\n", 7)), "yaml: a NUL byte at line 1, column 5");
  EXPECT_EQ(error_of("name: caf\xC3\xA9 \xF0\x9F\x9A\x80\n"), "no error");
}

TEST(YamlGuard, SeveralDocumentsAreRefusedUnlessTheCallerAsksForThem) {
  const std::string two = "a: 1\n---\nb: 2\n";
  EXPECT_THAT(error_of(two), HasSubstr("yaml: the input holds more than 1 document (another "
                                       "starts at line 2)"));
  EXPECT_THROW(load_yaml(two), hub::FieldError);
  YamlLimits several;
  several.max_documents = 5;
  const auto documents = load_yaml_documents(two, several);
  ASSERT_EQ(documents.size(), 2u);
  EXPECT_EQ(documents[1]["b"].as<int>(), 2);
}

TEST(YamlGuard, EmptyDocumentsAreSkippedAsKubectlSkipsThem) {
  EXPECT_EQ(load_yaml("---\na: 1\n---\n")["a"].as<int>(), 1);
  EXPECT_EQ(load_yaml("---\n---\nb: 2\n")["b"].as<int>(), 2);
  EXPECT_TRUE(load_yaml("").IsNull());
}

TEST(YamlGuard, SyntaxErrorsNameTheirPosition) {
  EXPECT_THAT(error_of("a: [unclosed\n"), HasSubstr("yaml: not valid YAML"));
}

TEST(YamlGuard, AVolcanoJobWithSeveralDocumentsIsRefusedNotTruncated) {
  const std::string job =
      "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: one}\n"
      "spec:\n  tasks:\n    - name: main\n      template:\n        spec:\n"
      "          containers: [{name: c, image: busybox}]\n";
  EXPECT_NO_THROW(parse_volcano_job(job));
  EXPECT_THROW(parse_volcano_job(job + "---\n" + job), hub::FieldError);
}

// Found by the fuzz step: yaml-cpp 0.7 reports a document again and again
// for a stray ",", without reading on; the guard looped forever.
TEST(YamlGuard, InputThatMakesTheParserStallIsRefusedNotLoopedOn) {
  for (const char* stalls : {",", "a: 1\n,\n"}) {
    try {
      load_yaml_documents(stalls, YamlLimits{});
      ADD_FAILURE() << "accepted: " << stalls;
    } catch (const hub::FieldError& error) {
      EXPECT_THAT(error.what(), HasSubstr("not valid YAML")) << stalls;
    }
  }
}

}  // namespace
}  // namespace gantry::config
