#include "support/log_format.hpp"

#include <gtest/gtest.h>
#include <spdlog/details/log_msg.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "support/log_fields.hpp"

namespace gantry::support {
namespace {

// 2026-01-02T03:04:05.678Z
const spdlog::log_clock::time_point kTime{std::chrono::milliseconds(1'767'323'045'678)};

std::string json_line(std::string_view text,
                      spdlog::level::level_enum level = spdlog::level::info) {
  const spdlog::details::log_msg msg(kTime, spdlog::source_loc{}, "", level,
                                     spdlog::string_view_t(text.data(), text.size()));
  spdlog::memory_buf_t out;
  JsonLogFormatter().format(msg, out);
  return std::string(out.data(), out.size());
}

nlohmann::json parsed(const std::string& line) {
  EXPECT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  // One line: nothing inside may break it.
  EXPECT_EQ(line.find('\n'), line.size() - 1) << line;
  return nlohmann::json::parse(line);
}

TEST(JsonLogFormatterTest, WritesTimeLevelAndMessageFirst) {
  EXPECT_EQ(
      json_line("hub epoch 3", spdlog::level::warn),
      "{\"ts\":\"2026-01-02T03:04:05.678Z\",\"level\":\"warning\",\"msg\":\"hub epoch 3\"}\n");
}

TEST(JsonLogFormatterTest, EscapesQuotesNewlinesAndControlCharacters) {
  const std::string text = "a \"quoted\" \\ path\nsecond line\ttab\x01\x1f end";
  const std::string line = json_line(text);
  EXPECT_NE(line.find(R"(\"quoted\")"), std::string::npos) << line;
  EXPECT_NE(line.find(R"(\n)"), std::string::npos) << line;
  EXPECT_NE(line.find(R"(\u0001)"), std::string::npos) << line;
  EXPECT_NE(line.find(R"(\u001f)"), std::string::npos) << line;
  EXPECT_EQ(parsed(line)["msg"], text);
}

TEST(JsonLogFormatterTest, InvalidUtf8IsReplacedNotThrown) {
  const nlohmann::json line = parsed(json_line("cluster \xff\xfe name"));
  EXPECT_EQ(line["msg"], "cluster \xEF\xBF\xBD\xEF\xBF\xBD name");
}

TEST(JsonLogFormatterTest, FieldsAppearOnlyWhenSet) {
  const nlohmann::json bare = parsed(json_line("no scope"));
  EXPECT_FALSE(bare.contains("job"));
  EXPECT_FALSE(bare.contains("cluster"));
  EXPECT_FALSE(bare.contains("dispatch"));

  const LogScope scope({.job = "train-\"7\"", .cluster = "east"});
  const nlohmann::json line = parsed(json_line("admitted"));
  EXPECT_EQ(line["job"], "train-\"7\"");
  EXPECT_EQ(line["cluster"], "east");
  EXPECT_FALSE(line.contains("dispatch"));
}

TEST(JsonLogFormatterTest, DispatchIsADecimalStringThatKeepsAll64Bits) {
  const LogScope scope({.dispatch = 18'446'744'073'709'551'615u});
  EXPECT_EQ(parsed(json_line("x"))["dispatch"], "18446744073709551615");
}

TEST(LogScopeTest, NestedScopesAddFieldsAndRestoreTheOuterOnes) {
  {
    const LogScope cluster({.cluster = "east"});
    {
      const LogScope job({.job = "a", .dispatch = 7});
      EXPECT_EQ(current_log_fields().cluster, "east");  // kept from the outer scope
      EXPECT_EQ(current_log_fields().job, "a");
      {
        const LogScope other({.cluster = "west"});
        EXPECT_EQ(current_log_fields().cluster, "west");
        EXPECT_EQ(current_log_fields().job, "a");
      }
      EXPECT_EQ(current_log_fields().cluster, "east");
      EXPECT_EQ(current_log_fields().dispatch, 7u);
    }
    EXPECT_TRUE(current_log_fields().job.empty());
    EXPECT_FALSE(current_log_fields().dispatch.has_value());
    EXPECT_EQ(current_log_fields().cluster, "east");
  }
  EXPECT_TRUE(current_log_fields().cluster.empty());
}

}  // namespace
}  // namespace gantry::support
