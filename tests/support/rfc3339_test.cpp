// One RFC 3339 writer for every part of Gantry: seconds, milliseconds or
// microseconds, floored, before the epoch too, and "" for what the C library
// cannot express.
#include "support/rfc3339.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace gantry::support {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t kT0Ms = 1'714'550'400'000;  // 2024-05-01T08:00:00Z

TEST(Rfc3339, FractionsAreFlooredNeverRoundedUp) {
  EXPECT_EQ(rfc3339_utc_ms(kT0Ms + 59'999, SecondFraction::kNone), "2024-05-01T08:00:59Z");
  EXPECT_EQ(rfc3339_utc_ms(kT0Ms + 59'999), "2024-05-01T08:00:59.999Z");
  EXPECT_EQ(rfc3339_utc_ms(kT0Ms + 7, SecondFraction::kMicros), "2024-05-01T08:00:00.007000Z");
  const std::chrono::system_clock::time_point t0{std::chrono::milliseconds(kT0Ms)};
  EXPECT_EQ(rfc3339_utc(t0 + 123456us + 999ns, SecondFraction::kMicros),
            "2024-05-01T08:00:00.123456Z");
  EXPECT_EQ(rfc3339_utc(t0 + 1999us, SecondFraction::kMillis), "2024-05-01T08:00:00.001Z");
}

TEST(Rfc3339, BeforeTheEpochIsTheSecondBefore) {
  EXPECT_EQ(rfc3339_utc_ms(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(rfc3339_utc_ms(-1000, SecondFraction::kNone), "1969-12-31T23:59:59Z");
  EXPECT_EQ(rfc3339_utc(std::chrono::system_clock::time_point{-1us}, SecondFraction::kMicros),
            "1969-12-31T23:59:59.999999Z");
}

TEST(Rfc3339, ATimeNoCalendarHoldsIsEmpty) {
  EXPECT_EQ(rfc3339_utc_ms(std::numeric_limits<std::int64_t>::max()), "");
  EXPECT_EQ(rfc3339_utc_ms(std::numeric_limits<std::int64_t>::min()), "");
}

}  // namespace
}  // namespace gantry::support

namespace gantry::support {
namespace {

TEST(Rfc3339, ReadsWhatItWritesAndAnyOffset) {
  using std::chrono::system_clock;
  const system_clock::time_point t0 = system_clock::from_time_t(1714550400);  // 2024-05-01T08:00Z
  EXPECT_EQ(parse_rfc3339("2024-05-01T08:00:00Z"), t0);
  EXPECT_EQ(parse_rfc3339("2024-05-01T10:00:00.25+02:00"), t0 + std::chrono::milliseconds(250));
  EXPECT_EQ(parse_rfc3339("2024-05-01t07:30:00.1234567-00:30"),
            t0 + std::chrono::microseconds(123456));
  const auto later = t0 + std::chrono::microseconds(42);
  EXPECT_EQ(parse_rfc3339(rfc3339_utc(later, SecondFraction::kMicros)), later);
  for (const char* bad : {"", "2024-05-01", "2024-05-01T08:00:00", "2024-05-01T08:00:00.Z",
                          "2024-05-01 08:00:00Z", "2024-05-01T08:00:00+0200"})
    EXPECT_FALSE(parse_rfc3339(bad)) << bad;
}

}  // namespace
}  // namespace gantry::support
