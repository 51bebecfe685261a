// Backfill in the simulator: time limits drawn from the trace durations, and
// a big gang that first fit would delay starting at its planned time.
#include <gtest/gtest.h>

#include <random>

#include "sim/replay.hpp"
#include "sim/time_limits.hpp"
#include "tests/sim/hand_trace.hpp"

namespace gantry::sim {
namespace {

using testing::start_seconds;
using testing::Starts;

// One cluster of two 8-GPU nodes.
//   job  submit  duration  gpus
//   a1      0      100       8
//   a2      0       50       8
//   a3     10      100      16   needs both nodes
//   a4     20       80       4   would still run at 100
//   a5     20       20       4   ends by 100
std::vector<Trace> backfill_trace() {
  return {Trace{"ca",
                {{"a1", 0, 100, 8},
                 {"a2", 0, 50, 8},
                 {"a3", 10, 100, 16},
                 {"a4", 20, 80, 4},
                 {"a5", 20, 20, 4}}}};
}

ReplayResult run(Policy policy, TimeLimitModel::Kind limits) {
  ReplayConfig config{Mode::kIsolated, policy};
  config.time_limit.kind = limits;
  return replay({SimCluster{"ca", identical_gpu_nodes("ca", 2)}}, backfill_trace(), config);
}

// a2 ends at 50: a4 and a5 take its node; a3 waits for a4 too: 130.
TEST(ReplayBackfill, FirstFitLetsALongJobDelayTheBigGang) {
  EXPECT_EQ(start_seconds(run(Policy::kFirstFit, TimeLimitModel::Kind::kExact)),
            (Starts{0, 0, 130, 50, 50}));
}

// a3 is planned for 100 (a1's limit). At 50 only a5, ending by 100, may use
// the freed node; a3 starts at 100 and a4 after it, at 200.
TEST(ReplayBackfill, BackfillStartsTheBigGangAtItsPlannedTime) {
  EXPECT_EQ(start_seconds(run(Policy::kBackfill, TimeLimitModel::Kind::kExact)),
            (Starts{0, 0, 100, 200, 50}));
}

// Without limits nothing can be planned: backfill is first fit.
TEST(ReplayBackfill, WithoutTimeLimitsBackfillIsFirstFit) {
  EXPECT_EQ(start_seconds(run(Policy::kBackfill, TimeLimitModel::Kind::kNone)),
            (Starts{0, 0, 130, 50, 50}));
}

TEST(TimeLimitModel, ParsesTheThreeModels) {
  EXPECT_EQ(parse_time_limit_model("exact")->kind, TimeLimitModel::Kind::kExact);
  EXPECT_EQ(parse_time_limit_model("trace-random")->kind, TimeLimitModel::Kind::kTraceRandom);
  EXPECT_EQ(parse_time_limit_model("x2")->factor, 2.0);
  EXPECT_EQ(parse_time_limit_model("x1.5")->factor, 1.5);
  EXPECT_EQ(time_limit_model_name(*parse_time_limit_model("x1.5")), "x1.5");
  for (const char* bad : {"", "x", "2x", "x0.5", "xtwo", "exactly"})
    EXPECT_FALSE(parse_time_limit_model(bad)) << bad;
}

TEST(TimeLimitModel, ExactAndFactorFollowTheDuration) {
  std::mt19937_64 rng(1);
  EXPECT_EQ(draw_limit_ms(*parse_time_limit_model("exact"), 90'000, rng), 90'000);
  EXPECT_EQ(draw_limit_ms(*parse_time_limit_model("exact"), 0, rng), 1000);
  EXPECT_EQ(draw_limit_ms(*parse_time_limit_model("x2"), 90'000, rng), 180'000);
  EXPECT_EQ(draw_limit_ms(TimeLimitModel{}, 90'000, rng), 0);
}

// Overestimates, on the round values users type, at most 10x before rounding.
TEST(TimeLimitModel, TraceRandomOverestimatesOnRoundValuesReproducibly) {
  const TimeLimitModel model = *parse_time_limit_model("trace-random");
  std::mt19937_64 a(model.seed), b(model.seed);
  constexpr std::int64_t kMinute = 60'000;
  for (std::int64_t duration : {std::int64_t{1000}, 7 * kMinute, 50 * kMinute, 5 * 60 * kMinute}) {
    const std::int64_t limit = draw_limit_ms(model, duration, a);
    EXPECT_EQ(limit, draw_limit_ms(model, duration, b));
    EXPECT_GE(limit, duration);
    EXPECT_EQ(limit % (5 * kMinute), 0) << limit;
    EXPECT_LE(limit, std::max<std::int64_t>(10 * duration * 2, 5 * kMinute)) << limit;
  }
}

}  // namespace
}  // namespace gantry::sim
