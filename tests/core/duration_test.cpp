// Go-style durations (hub/duration.hpp), as annotations and flags give them.
#include "hub/duration.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace gantry::hub {
namespace {

std::string refusal(std::string_view text) {
  try {
    parse_duration_ms(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

TEST(DurationTest, ReadsEachUnitAndTheirSums) {
  EXPECT_EQ(parse_duration_ms("500ms"), 500);
  EXPECT_EQ(parse_duration_ms("90s"), 90'000);
  EXPECT_EQ(parse_duration_ms("30m"), 1'800'000);
  EXPECT_EQ(parse_duration_ms("1h30m"), 5'400'000);
  EXPECT_EQ(parse_duration_ms("2.5h"), 9'000'000);
  EXPECT_EQ(parse_duration_ms("0s"), 0);
  EXPECT_EQ(parse_duration_ms("1h1ms"), 3'600'001);
}

TEST(DurationTest, RefusalsNameTheTextAndWhatIsWrong) {
  EXPECT_EQ(refusal(""), "invalid duration \"\": empty");
  EXPECT_EQ(refusal("90"), "invalid duration \"90\": a number needs a unit (ms, s, m, h)");
  EXPECT_EQ(refusal("3d"), "invalid duration \"3d\": the unit must be ms, s, m or h");
  EXPECT_EQ(refusal("h"), "invalid duration \"h\": expected a number");
  EXPECT_EQ(refusal("1..5h"), "invalid duration \"1..5h\": malformed number");
  EXPECT_EQ(refusal("-5m"), "invalid duration \"-5m\": expected a number");
}

TEST(DurationTest, ADurationTooLongForMillisecondsIsRefusedNotWrapped) {
  EXPECT_EQ(refusal("99999999999999999999h"),
            "invalid duration \"99999999999999999999h\": too long");
  EXPECT_EQ(refusal("2562047789000h"), "invalid duration \"2562047789000h\": too long");
  EXPECT_GT(parse_duration_ms("2555555555555h"), 0) << "just under the 64-bit limit still reads";
}

TEST(DurationTest, DaysAreReadOnlyWhereAskedFor) {
  EXPECT_EQ(parse_duration_ms("7d", DurationUnits::kGoAndDays), 7 * 86'400'000);
  EXPECT_EQ(parse_duration_ms("1d12h", DurationUnits::kGoAndDays), 36 * 3'600'000);
  try {
    parse_duration_ms("3w", DurationUnits::kGoAndDays);
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "invalid duration \"3w\": the unit must be ms, s, m, h or d");
  }
}

TEST(DurationTest, TheWriterIsShortAndHuman) {
  EXPECT_EQ(format_duration(0), "0s");
  EXPECT_EQ(format_duration(-5), "0s");
  EXPECT_EQ(format_duration(500), "500ms");
  EXPECT_EQ(format_duration(1500), "1.5s");
  EXPECT_EQ(format_duration(45'250), "45.25s");
  EXPECT_EQ(format_duration(90'000), "1m30s");
  EXPECT_EQ(format_duration(5'400'000), "1h30m");
  EXPECT_EQ(format_duration(7'200'000), "2h");
  EXPECT_EQ(format_duration(3'723'004), "1h2m3.004s");
}

TEST(DurationTest, WhatTheWriterWritesTheReaderReadsBackExactly) {
  for (const std::int64_t ms :
       {1LL, 999LL, 1000LL, 1001LL, 59'999LL, 60'000LL, 61'010LL, 3'599'999LL, 3'600'000LL,
        3'600'001LL, 86'400'000LL, 123'456'789LL}) {
    SCOPED_TRACE(ms);
    EXPECT_EQ(parse_duration_ms(format_duration(ms)), ms) << format_duration(ms);
  }
}

}  // namespace
}  // namespace gantry::hub
