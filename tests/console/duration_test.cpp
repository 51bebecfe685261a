#include "console/duration.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gantry::console {
namespace {

using std::chrono::milliseconds;

TEST(ParseDuration, AcceptsEachUnit) {
  EXPECT_EQ(parse_duration("500ms"), milliseconds(500));
  EXPECT_EQ(parse_duration("30s"), milliseconds(30000));
  EXPECT_EQ(parse_duration("2m"), milliseconds(120000));
  EXPECT_EQ(parse_duration("1h"), milliseconds(3600000));
  EXPECT_EQ(parse_duration("0s"), milliseconds(0));
}

TEST(ParseDuration, AcceptsFractionsAndSequences) {
  EXPECT_EQ(parse_duration("1.5s"), milliseconds(1500));
  EXPECT_EQ(parse_duration("1m30s"), milliseconds(90000));
  EXPECT_EQ(parse_duration("1h2m3s4ms"), milliseconds(3723004));
}

TEST(ParseDuration, RefusesBadTextNamingIt) {
  for (const char* bad : {"", "5", "s", "5x", "-5s", "5 s", "1.s5", "m5", "5ss", "99999999999h"}) {
    SCOPED_TRACE(bad);
    try {
      parse_duration(bad);
      ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("\"" + std::string(bad) + "\""), std::string::npos)
          << e.what();
    }
  }
}

TEST(ParseDuration, TakesDaysAndRefusesMoreThanACenturyShowingExamples) {
  EXPECT_EQ(parse_duration("7d"), milliseconds(7 * 86'400'000LL));
  try {
    parse_duration("36501d");
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(
        e.what(),
        "invalid duration \"36501d\": more than a century (use e.g. 30s, 2m, 500ms, 1h30m, 7d)");
  }
  try {
    parse_duration("5x");
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "invalid duration \"5x\": the unit must be ms, s, m, h or d (use e.g. 30s, 2m, "
                 "500ms, 1h30m, 7d)");
  }
}

TEST(FormatAge, FollowsKubectlGranularity) {
  EXPECT_EQ(format_age(45000), "45s");
  EXPECT_EQ(format_age(119000), "119s");
  EXPECT_EQ(format_age(200000), "3m20s");
  EXPECT_EQ(format_age(17 * 60000), "17m");
  EXPECT_EQ(format_age(5 * 3600000 + 7 * 60000), "5h7m");
  EXPECT_EQ(format_age(30 * 3600000LL), "30h");
  EXPECT_EQ(format_age(3 * 86400000LL), "3d");
  EXPECT_EQ(format_age(100 * 86400000LL), "100d");
  EXPECT_EQ(format_age(-5000), "0s");  // hub clock ahead of ours
}

}  // namespace
}  // namespace gantry::console
