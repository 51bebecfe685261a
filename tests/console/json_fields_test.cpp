// The JSON text gantryctl prints: escaping, UTF-8, numbers, layout and the
// shared shapes (resources in natural units, timestamps).
#include "console/json_fields.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "console/units.hpp"

namespace gantry::console {
namespace {

// One string value as gantryctl prints it, without the trailing newline.
std::string quoted(const std::string& text) {
  const std::string line = json_text(Json(text));
  return line.substr(0, line.size() - 1);
}

TEST(JsonText, EscapesQuotesBackslashesAndNamedControls) {
  EXPECT_EQ(quoted("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(quoted("\b\f\n\r\t"), R"("\b\f\n\r\t")");
}

TEST(JsonText, EscapesOtherControlCharactersAsUnicode) {
  EXPECT_EQ(quoted(std::string("\x00\x01\x1f", 3)), R"("\u0000\u0001\u001f")");
  EXPECT_EQ(quoted("\x7f"), "\"\x7f\"");  // DEL is legal in JSON strings
}

TEST(JsonText, PassesValidUtf8Through) {
  const std::string text = "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x9a\x80";  // héllo € 🚀
  EXPECT_EQ(quoted(text), "\"" + text + "\"");
}

TEST(JsonText, ReplacesInvalidUtf8SoTheOutputStaysValid) {
  const std::string replacement = "\xef\xbf\xbd";
  EXPECT_EQ(quoted("a\xff"
                   "b"),
            "\"a" + replacement + "b\"");
  EXPECT_EQ(quoted("\xc3"), "\"" + replacement + "\"");                    // truncated sequence
  EXPECT_EQ(quoted("\xc0\xaf"), "\"" + replacement + replacement + "\"");  // overlong '/'
  EXPECT_EQ(quoted("\xed\xa0\x80"),                                        // UTF-16 surrogate
            "\"" + replacement + replacement + replacement + "\"");
}

TEST(JsonText, NestsObjectsAndArraysWithIndentationAndEndsWithANewline) {
  Json json = Json::array();
  json.push_back({{"name", "a"}, {"tags", {"x"}}, {"empty", Json::object()}});
  json.push_back(3);
  EXPECT_EQ(json_text(json),
            "[\n"
            "  {\n"
            "    \"name\": \"a\",\n"
            "    \"tags\": [\n"
            "      \"x\"\n"
            "    ],\n"
            "    \"empty\": {}\n"
            "  },\n"
            "  3\n"
            "]\n");
  EXPECT_EQ(json_text(Json::array()), "[]\n");
}

TEST(JsonText, WritesIntegersExactly) {
  const Json json = {std::int64_t{0}, std::int64_t{-42}, std::numeric_limits<std::int64_t>::max(),
                     std::numeric_limits<std::int64_t>::min()};
  EXPECT_EQ(json.dump(), "[0,-42,9223372036854775807,-9223372036854775808]");
  EXPECT_NE(json_text(json).find("  -9223372036854775808\n"), std::string::npos);
}

TEST(JsonText, WritesDoublesShortestAndNonFiniteAsNull) {
  const Json json = {0.375,
                     1.5,
                     0.1,
                     1e300,
                     std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity()};
  const std::string text = json_text(json);
  for (const char* expected : {"0.375", "1.5", "0.1", "1e+300"}) {
    EXPECT_NE(text.find(std::string("  ") + expected + ",\n"), std::string::npos) << text;
  }
  EXPECT_NE(text.find("  null,\n  null\n"), std::string::npos) << text;
}

TEST(ResourcesJson, NaturalUnitsMatchTheExactDecimals) {
  const protocol::ResourceList resources{{"cpu", 1500},
                                         {"memory", 2199023255552000},
                                         {"nvidia.com/gpu", 8000},
                                         {"small", 1},
                                         {"negative", -250}};
  const Json json = resources_json(resources);
  EXPECT_EQ(
      json.dump(),
      R"({"cpu":1.5,"memory":2199023255552,"negative":-0.25,"nvidia.com/gpu":8,"small":0.001})");
  for (const auto& [name, milli] : resources) {
    EXPECT_EQ(json[name].dump(), milli_to_decimal(milli)) << name;
  }
  EXPECT_EQ(resources_json({}).dump(), "{}");
}

TEST(TimestampJson, IsRfc3339OrNullForNotYet) {
  EXPECT_EQ(timestamp_json(1714550400123).dump(), R"("2024-05-01T08:00:00.123Z")");
  EXPECT_TRUE(timestamp_json(0).is_null());
}

TEST(OcmScoresJson, UsesOcmsScoreNamesAndIsNullWhenTheAgentSentNone) {
  const protocol::PlacementScores scores{40, 100, 25, 100, -20, 60, 1714550700000};
  EXPECT_EQ(ocm_scores_json(scores).dump(),
            R"({"cpuNodeAvailable":40,"cpuClusterAvailable":100,"memNodeAvailable":25,)"
            R"("memClusterAvailable":100,"gpuNodeAvailable":-20,"gpuClusterAvailable":60,)"
            R"("validUntil":"2024-05-01T08:05:00.000Z"})");
  EXPECT_TRUE(ocm_scores_json(protocol::PlacementScores{}).is_null());
}

}  // namespace
}  // namespace gantry::console
