#include "sim/cli_options.hpp"

#include <gtest/gtest.h>

namespace gantry::sim {
namespace {

std::string error_of(const std::vector<std::string>& args) {
  try {
    parse_sim_options(args);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "no error";
}

TEST(SimOptions, ParsesTheDocumentedFlags) {
  const SimOptions options = parse_sim_options(
      {"--trace-dir", "traces", "--clusters", "1,3,10", "--nodes=4,5,6", "--mode", "pooled",
       "--policy", "firstfit", "--json", "out.json", "--size-percentile", "75"});
  EXPECT_EQ(options.trace_dir, "traces");
  EXPECT_EQ(options.clusters, (std::vector<int>{1, 3, 10}));
  EXPECT_EQ(options.nodes, (std::vector<std::int64_t>{4, 5, 6}));
  EXPECT_EQ(options.config.mode, Mode::kPooled);
  EXPECT_EQ(options.config.policy, Policy::kFirstFit);
  EXPECT_EQ(options.json, std::filesystem::path("out.json"));
  EXPECT_DOUBLE_EQ(options.size_percentile, 75);
}

TEST(SimOptions, Defaults) {
  const SimOptions options = parse_sim_options({"--trace-dir", "t"});
  EXPECT_TRUE(options.clusters.empty());
  EXPECT_EQ(options.config.mode, Mode::kIsolated);
  EXPECT_EQ(options.config.policy, Policy::kFifo);
  EXPECT_DOUBLE_EQ(options.size_percentile, 90);
  EXPECT_FALSE(options.openb);
}

TEST(SimOptions, ParsesFairShareAndSlaFlags) {
  const SimOptions options =
      parse_sim_options({"--trace-dir", "t", "--clusters", "1,2", "--mode", "pooled", "--policy",
                         "fairshare", "--weights", "1,3", "--no-reclaim", "--sla=3600"});
  EXPECT_EQ(options.config.policy, Policy::kFairShare);
  EXPECT_EQ(options.config.weights, (std::vector<std::int32_t>{1, 3}));
  EXPECT_FALSE(options.config.reclaim);
  EXPECT_EQ(options.config.sla_ms, 3'600'000);
  EXPECT_TRUE(parse_sim_options({"--trace-dir", "t"}).config.reclaim);
  EXPECT_EQ(parse_sim_options({"--trace-dir", "t"}).config.sla_ms, 0);
}

TEST(SimOptions, FairShareAndSlaErrorsNameTheFlagAndValue) {
  EXPECT_EQ(error_of({"--trace-dir", "t", "--policy", "fair"}),
            "--policy: expected fifo, firstfit, fairshare or backfill (got \"fair\")");
  EXPECT_EQ(error_of({"--trace-dir", "t", "--policy", "fairshare"}),
            "--policy fairshare: needs --mode pooled (isolated clusters share nothing)");
  EXPECT_EQ(error_of({"--trace-dir", "t", "--mode", "pooled", "--policy", "fairshare", "--clusters",
                      "1,2", "--weights", "1,0"}),
            "--weights: expected a comma-separated list of positive integers (got \"1,0\")");
  EXPECT_EQ(error_of({"--trace-dir", "t", "--mode", "pooled", "--policy", "fairshare", "--clusters",
                      "1,2", "--weights", "1,70000"}),
            "--weights: weights go from 1 to 65535 (got \"1,70000\")");
  EXPECT_EQ(error_of({"--trace-dir", "t", "--mode", "pooled", "--policy", "fairshare", "--clusters",
                      "1,2", "--weights", "1,2,3"}),
            "--weights: 3 values for 2 clusters; give one per --clusters entry, in the same order");
  EXPECT_EQ(error_of({"--trace-dir", "t", "--mode", "pooled", "--policy", "fairshare", "--weights",
                      "1,2"}),
            "--weights: needs --clusters, so that each weight has its cluster");
  EXPECT_EQ(error_of({"--trace-dir", "t", "--clusters", "1", "--weights", "2"}),
            "--weights: only for --policy fairshare");
  EXPECT_EQ(error_of({"--trace-dir", "t", "--no-reclaim"}),
            "--no-reclaim: only for --policy fairshare");
  EXPECT_EQ(error_of({"--trace-dir", "t", "--sla", "1h"}),
            "--sla: expected a whole number of seconds from 1 to 315360000 (got \"1h\")");
  EXPECT_EQ(error_of({"--trace-dir", "t", "--sla", "0"}),
            "--sla: expected a whole number of seconds from 1 to 315360000 (got \"0\")");
  EXPECT_EQ(error_of({"--trace-dir", "t", "--sla"}), "--sla: missing value");
}

TEST(SimOptions, ParsesPlacementAndSplit) {
  const SimOptions options = parse_sim_options(
      {"--trace-dir", "t", "--mode", "pooled", "--placement", "spread", "--split"});
  EXPECT_EQ(options.config.placement, "spread");
  EXPECT_TRUE(options.config.split);
  EXPECT_EQ(parse_sim_options({"--trace-dir", "t", "--placement=gpu-available"}).config.placement,
            "gpu-available");
  const SimOptions defaults = parse_sim_options({"--trace-dir", "t"});
  EXPECT_EQ(defaults.config.placement, "binpack");
  EXPECT_FALSE(defaults.config.split);
}

TEST(SimOptions, PlacementAndSplitErrorsNameTheFlagAndValue) {
  EXPECT_EQ(error_of({"--trace-dir", "t", "--placement", "most-packed"}),
            "--placement: expected one of binpack, spread, gpu-available, topology (got \"most-packed\")");
  EXPECT_EQ(error_of({"--trace-dir", "t", "--placement"}), "--placement: missing value");
  EXPECT_EQ(error_of({"--trace-dir", "t", "--split"}),
            "--split: needs --mode pooled (an isolated job may use only its own cluster)");
  EXPECT_EQ(
      error_of({"--trace-dir", "t", "--mode", "isolated", "--split", "--placement", "spread"}),
      "--split: needs --mode pooled (an isolated job may use only its own cluster)");
}

TEST(SimOptions, ErrorsNameTheFlagAndValue) {
  EXPECT_EQ(error_of({"--trace-dir", "t", "--mode", "shared"}),
            "--mode: expected isolated or pooled (got \"shared\")");
  EXPECT_EQ(error_of({"--trace-dir", "t", "--clusters", "1,x"}),
            "--clusters: expected a comma-separated list of positive integers (got \"1,x\")");
  EXPECT_EQ(error_of({"--trace-dir", "t", "--clusters", "1,2", "--nodes", "4"}),
            "--nodes: 1 values for 2 clusters; give one per --clusters entry, in the same order");
  EXPECT_EQ(error_of({"--clusters", "1"}), "--trace-dir: required");
  EXPECT_EQ(error_of({"--trace-dir"}), "--trace-dir: missing value");
  EXPECT_EQ(error_of({"--trace-dir", "t", "--speed", "9"}),
            "unknown argument \"--speed\"; see --help");
  EXPECT_EQ(error_of({"--trace-dir", "t", "--size-percentile", "0"}),
            "--size-percentile: expected a number above 0 and at most 100 (got \"0\")");
  EXPECT_EQ(error_of({"--trace-dir", "t", "--clusters", "2,2"}),
            "--clusters: cluster 2 is listed twice (got \"2,2\")");
}

TEST(SimOptionsBackfill, ParsesPolicyLimitsAndReservations) {
  const SimOptions options = parse_sim_options(
      {"--trace-dir", "t", "--policy", "backfill", "--time-limit", "x2", "--reservations", "3"});
  EXPECT_EQ(options.config.policy, Policy::kBackfill);
  EXPECT_EQ(options.config.time_limit.factor, 2.0);
  EXPECT_EQ(reservations_of(options.config), 3u);
  EXPECT_EQ(reservations_of(parse_sim_options({"--trace-dir", "t", "--policy", "backfill"}).config),
            1u);
  EXPECT_EQ(reservations_of(parse_sim_options({"--trace-dir", "t", "--policy", "firstfit"}).config),
            0u);
}

TEST(SimOptionsBackfill, PlannedRuntimesReachTheCoreAndNeedTimeLimits) {
  const SimOptions options =
      parse_sim_options({"--trace-dir", "t", "--policy", "backfill", "--time-limit", "x2",
                         "--planned-runtimes", "learned"});
  EXPECT_EQ(scheduler_options(options.config).planned_runtimes, hub::PlannedRuntimes::kLearned);
  EXPECT_EQ(scheduler_options(parse_sim_options({"--trace-dir", "t"}).config).planned_runtimes,
            hub::PlannedRuntimes::kLimits);
  EXPECT_EQ(error_of({"--trace-dir", "t", "--policy", "backfill", "--planned-runtimes", "learned"}),
            "--planned-runtimes: needs --time-limit (runtimes are learned against limits)");
  EXPECT_EQ(error_of({"--trace-dir", "t", "--planned-runtimes", "soon"}),
            "--planned-runtimes: expected limits or learned (got \"soon\")");
}

TEST(SimOptionsBackfill, TimeLimitSeedChangesTheTraceRandomDrawsOnly) {
  const auto seed = [](std::vector<std::string> extra) {
    std::vector<std::string> args{"--trace-dir", "t", "--time-limit", "trace-random"};
    args.insert(args.end(), extra.begin(), extra.end());
    return parse_sim_options(args).config.time_limit.seed;
  };
  EXPECT_EQ(seed({}), TimeLimitModel{}.seed);
  EXPECT_EQ(seed({"--time-limit-seed", "7"}), 7u);
  EXPECT_EQ(parse_sim_options(
                {"--trace-dir", "t", "--time-limit-seed", "7", "--time-limit", "trace-random"})
                .config.time_limit.seed,
            7u)
      << "in either order";
  EXPECT_EQ(error_of({"--trace-dir", "t", "--time-limit", "x2", "--time-limit-seed", "7"}),
            "--time-limit-seed: needs --time-limit trace-random");
  EXPECT_EQ(
      error_of({"--trace-dir", "t", "--time-limit", "trace-random", "--time-limit-seed", "-3"}),
      "--time-limit-seed: expected a whole number from 0 (got \"-3\")");
}

TEST(SimOptionsFairShare, ReclaimSparesAfterIsInSecondsAndOnlyForFairShare) {
  const auto spares = [](std::vector<std::string> extra) {
    std::vector<std::string> args{"--trace-dir", "t", "--mode", "pooled", "--policy", "fairshare"};
    args.insert(args.end(), extra.begin(), extra.end());
    return scheduler_options(parse_sim_options(args).config).reclaim_spares_after_ms;
  };
  EXPECT_EQ(spares({}), hub::SchedulerOptions{}.reclaim_spares_after_ms) << "the hub's default";
  EXPECT_EQ(spares({"--reclaim-spares-after", "1800"}), 1'800'000);
  EXPECT_EQ(spares({"--reclaim-spares-after", "0"}), 0);
  EXPECT_EQ(error_of({"--trace-dir", "t", "--policy", "firstfit", "--reclaim-spares-after", "60"}),
            "--reclaim-spares-after: only for --policy fairshare");
  EXPECT_EQ(error_of({"--trace-dir", "t", "--mode", "pooled", "--policy", "fairshare",
                      "--reclaim-spares-after", "-1"}),
            "--reclaim-spares-after: expected a whole number of seconds from 0 to 315360000 "
            "(got \"-1\")");
}

TEST(SimOptionsBackfill, ErrorsNameTheFlagAndValue) {
  EXPECT_EQ(error_of({"--trace-dir", "t", "--time-limit", "2x"}),
            "--time-limit: expected exact, xF (F >= 1, e.g. x2) or trace-random (got \"2x\")");
  EXPECT_EQ(error_of({"--trace-dir", "t", "--policy", "firstfit", "--reservations", "2"}),
            "--reservations: only for --policy backfill or fairshare");
  EXPECT_EQ(error_of({"--trace-dir", "t", "--policy", "backfill", "--reservations", "-1"}),
            "--reservations: expected a whole number from 0 to 1000 (got \"-1\")");
}

}  // namespace
}  // namespace gantry::sim
