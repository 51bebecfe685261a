// parse_bounded_json and json_excerpt (config/bounded_json.hpp): JSON from
// outside is refused past the depth limit before anything recursive sees it,
// and error messages quote a bounded, valid UTF-8 excerpt.
#include "config/bounded_json.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hub/field_error.hpp"

namespace gantry::config {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

std::string error_of(std::string_view text) {
  try {
    parse_bounded_json(text, "AdmissionReview");
  } catch (const hub::FieldError& error) {
    return error.what();
  }
  return "no error";
}

std::string nested(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST(BoundedJson, DepthWithinTheLimitParses) {
  EXPECT_EQ(error_of(nested(kMaxJsonDepth)), "no error");
  EXPECT_EQ(parse_bounded_json(R"({"a": [1, {"b": "c"}]})", "x")["a"][1]["b"], "c");
}

TEST(BoundedJson, TheDeepAdmissionReviewIsRefusedNamingTheLimit) {
  EXPECT_EQ(error_of(nested(100'000)),
            "AdmissionReview: nested deeper than 128 levels at byte 128 (the limit)");
  EXPECT_TRUE(parse_bounded_json_or_discarded(nested(100'000)).is_discarded());
}

TEST(BoundedJson, BracketsInsideStringsDoNotCount) {
  const std::string text = R"({"a": ")" + std::string(1000, '[') + R"(\"{{{"})";
  EXPECT_EQ(parse_bounded_json(text, "x")["a"].get<std::string>().size(), 1004u);
}

TEST(BoundedJson, SyntaxErrorsQuoteABoundedExcerpt) {
  // nlohmann's message quotes the last token: here a 1 MB unterminated string.
  const std::string text = "{\"a\": \"" + std::string(1 << 20, 'x');
  const std::string error = error_of(text);
  EXPECT_THAT(error, HasSubstr("AdmissionReview: not valid JSON: "));
  EXPECT_LT(error.size(), 600u);
}

TEST(BoundedJson, AnExcerptIsBoundedWhateverTheValue) {
  json wide = json::array();
  for (int i = 0; i < 100'000; ++i) wide.push_back(std::string(100, 'v'));
  const std::string excerpt = json_excerpt(wide, 80);
  EXPECT_LE(excerpt.size(), 83u);
  EXPECT_EQ(excerpt.substr(0, 5), "[\"vvv");

  json deep = json::array();
  json* innermost = &deep;
  for (int level = 0; level < 100'000; ++level) {
    innermost->push_back(json::array());
    innermost = &innermost->back();
  }
  EXPECT_EQ(json_excerpt(deep, 10), "[[[[[[[[[[...");
  EXPECT_EQ(json_excerpt(json{{"k", 1}}), R"({"k":1})");
}

}  // namespace
}  // namespace gantry::config
