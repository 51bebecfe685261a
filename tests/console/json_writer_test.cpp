#include "console/json_writer.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>

namespace gantry::console {
namespace {

TEST(JsonQuote, EscapesQuotesBackslashesAndNamedControls) {
  EXPECT_EQ(json_quote("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(json_quote("\b\f\n\r\t"), R"("\b\f\n\r\t")");
}

TEST(JsonQuote, EscapesOtherControlCharactersAsUnicode) {
  EXPECT_EQ(json_quote(std::string("\x00\x01\x1f", 3)), R"("\u0000\u0001\u001f")");
  EXPECT_EQ(json_quote("\x7f"), "\"\x7f\"");  // DEL is legal in JSON strings
}

TEST(JsonQuote, PassesValidUtf8Through) {
  const std::string text = "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x9a\x80";  // héllo € 🚀
  EXPECT_EQ(json_quote(text), "\"" + text + "\"");
}

TEST(JsonQuote, ReplacesInvalidUtf8SoTheOutputStaysValid) {
  const std::string replacement = "\xef\xbf\xbd";
  EXPECT_EQ(json_quote("a\xff"
                       "b"),
            "\"a" + replacement + "b\"");
  EXPECT_EQ(json_quote("\xc3"), "\"" + replacement + "\"");                    // truncated sequence
  EXPECT_EQ(json_quote("\xc0\xaf"), "\"" + replacement + replacement + "\"");  // overlong '/'
  EXPECT_EQ(json_quote("\xed\xa0\x80"),                                        // UTF-16 surrogate
            "\"" + replacement + replacement + replacement + "\"");
}

TEST(JsonWriter, NestsObjectsAndArraysWithIndentation) {
  JsonWriter json;
  json.begin_array();
  json.begin_object().key("name").string("a").key("tags").begin_array().string("x").end_array();
  json.key("empty").begin_object().end_object().end_object();
  json.number(std::int64_t{3});
  json.end_array();
  EXPECT_EQ(json.str(),
            "[\n"
            "  {\n"
            "    \"name\": \"a\",\n"
            "    \"tags\": [\n"
            "      \"x\"\n"
            "    ],\n"
            "    \"empty\": {}\n"
            "  },\n"
            "  3\n"
            "]");
}

TEST(JsonWriter, CompactModeHasNoWhitespace) {
  JsonWriter json(0);
  json.begin_object().key("a").begin_array().boolean(true).boolean(false).null().end_array();
  json.key("b\n").string("c").end_object();
  EXPECT_EQ(json.str(), R"({"a":[true,false,null],"b\n":"c"})");
}

TEST(JsonWriter, WritesIntegersExactly) {
  JsonWriter json(0);
  json.begin_array()
      .number(std::int64_t{0})
      .number(std::int64_t{-42})
      .number(std::numeric_limits<std::int64_t>::max())
      .number(std::numeric_limits<std::int64_t>::min())
      .end_array();
  EXPECT_EQ(json.str(), "[0,-42,9223372036854775807,-9223372036854775808]");
}

TEST(JsonWriter, WritesDoublesShortestAndNonFiniteAsNull) {
  JsonWriter json(0);
  json.begin_array()
      .number(0.375)
      .number(1.5)
      .number(0.1)
      .number(1e300)
      .number(std::numeric_limits<double>::quiet_NaN())
      .number(std::numeric_limits<double>::infinity())
      .end_array();
  EXPECT_EQ(json.str(), "[0.375,1.5,0.1,1e+300,null,null]");
}

TEST(JsonWriter, DecimalAcceptsOnlyJsonNumbers) {
  JsonWriter json(0);
  json.begin_array().decimal("1.5").decimal("-0.001").decimal("1024").end_array();
  EXPECT_EQ(json.str(), "[1.5,-0.001,1024]");
  JsonWriter bad(0);
  bad.begin_array();
  for (const char* text : {"", "-", "1.", ".5", "01", "1e3", "NaN", "1,5"}) {
    EXPECT_THROW(bad.decimal(text), std::logic_error) << text;
  }
}

TEST(JsonWriter, RefusesMisuse) {
  {
    JsonWriter json;
    json.begin_object();
    EXPECT_THROW(json.string("value without key"), std::logic_error);
    EXPECT_THROW(json.end_array(), std::logic_error);
    EXPECT_THROW(json.str(), std::logic_error);  // still open
  }
  {
    JsonWriter json;
    json.begin_array();
    EXPECT_THROW(json.key("k"), std::logic_error);
  }
  {
    JsonWriter json;
    json.null();
    EXPECT_THROW(json.null(), std::logic_error);  // two top-level values
  }
  {
    JsonWriter json;
    json.begin_object().key("k");
    EXPECT_THROW(json.end_object(), std::logic_error);  // key without value
  }
}

}  // namespace
}  // namespace gantry::console
