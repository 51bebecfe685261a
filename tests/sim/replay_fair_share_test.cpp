// Fair share and SLA guards on small hand-made traces, worked out from the
// core's rules (see replay_start_times_test.cpp for the placement rules).
#include <gtest/gtest.h>

#include "sim/replay.hpp"
#include "sim/summary.hpp"
#include "tests/sim/hand_trace.hpp"

namespace gantry::sim {
namespace {

using namespace testing;  // the hand-made trace

// ca (2 nodes) and cb (1 node) pooled: 24 GPUs, queues ca and cb deserve 12 each.
// Trace ca fills the pool at 0: a1 -> cb (most packed that fits), a2, a3 -> ca.
// At 10 cb's b1 (8) is within cb's deserved share and ca is above its own, so
// b1 reclaims: one victim on ca (the first cluster with the fewest victims),
// the newest, a3. a3 runs again when b1 ends, at 60, having lost 10 s x 8 GPUs.
std::vector<Trace> borrowing_traces() {
  return {Trace{"ca", {{"a1", 0, 100, 8}, {"a2", 0, 100, 8}, {"a3", 0, 100, 8}}},
          Trace{"cb", {{"b1", 10, 50, 8}}}};
}

ReplayConfig fair_share(bool reclaim) {
  ReplayConfig config{Mode::kPooled, Policy::kFairShare};
  config.reclaim = reclaim;
  return config;
}

TEST(ReplayFairShare, ReclaimEvictsTheNewestBorrowerAndCountsTheRestart) {
  const ReplayResult result = replay(hand_clusters(), borrowing_traces(), fair_share(true));
  EXPECT_EQ(start_seconds(result), (Starts{0, 0, 60, 10}));
  EXPECT_EQ(result.evictions, 1u);
  EXPECT_EQ(result.withdrawn_dispatches, 0u);
  const JobOutcome& a3 = result.jobs[2];
  EXPECT_EQ(a3.evictions, 1);
  EXPECT_EQ(a3.lost_ms, 10'000);
  EXPECT_EQ(a3.wait_ms(), 60'000) << "wait runs to the final start";
  EXPECT_EQ(a3.end_ms(), 160'000);
  const Summary s = summarize(result.jobs, std::nullopt, 24);
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_DOUBLE_EQ(s.lost_gpu_seconds, 80);
  EXPECT_DOUBLE_EQ(s.max_pending_s, 50) << "a3 pending 50 s after its eviction";
}

TEST(ReplayFairShare, WithoutReclaimTheLenderWaitsForFreeGpus) {
  const ReplayResult result = replay(hand_clusters(), borrowing_traces(), fair_share(false));
  EXPECT_EQ(start_seconds(result), (Starts{0, 0, 0, 100}));
  EXPECT_EQ(result.evictions, 0u);
}

// Weights 3:1 make ca deserve 18 of 24 GPUs: it stays above its share either
// way, but cb's 6 is below b1's 8, so b1 may not reclaim and waits.
TEST(ReplayFairShare, WeightsSetTheDeservedShares) {
  ReplayConfig config = fair_share(true);
  config.weights = {3, 1};
  const ReplayResult result = replay(hand_clusters(), borrowing_traces(), config);
  EXPECT_EQ(start_seconds(result), (Starts{0, 0, 0, 100}));
  EXPECT_EQ(result.evictions, 0u);
}

TEST(ReplayFairShare, RefusedInIsolatedModeAndWithWrongWeightCount) {
  ReplayConfig isolated{Mode::kIsolated, Policy::kFairShare};
  EXPECT_THROW(replay(hand_clusters(), hand_traces(), isolated), std::invalid_argument);
  ReplayConfig config = fair_share(true);
  config.weights = {1, 2, 3};
  EXPECT_THROW(replay(hand_clusters(), hand_traces(), config), std::invalid_argument);
}

// Isolated first-fit lets a4 (4 GPUs) skip a3 (16) at 50. With a 30 s SLA a3
// is starving from 40: both ca nodes are held for it, so a4 waits for a3 as
// under FIFO (a3 at 100, a4 at 200). cb is as without the SLA: b2 only ever
// waits for b1. Waits of at least 30 s: a3 90, a4 180, b2 55.
TEST(ReplaySla, StarvingGangGetsNodesHeldAgainstSmallerJobs) {
  ReplayConfig config{Mode::kIsolated, Policy::kFirstFit};
  config.sla_ms = 30'000;
  const ReplayResult result = replay(hand_clusters(), hand_traces(), config);
  EXPECT_EQ(start_seconds(result), (Starts{0, 0, 100, 200, 0, 60, 10, 30}));
  EXPECT_EQ(summarize(result.jobs, std::nullopt, 24, config.sla_ms).sla_reached, 3u);
}

}  // namespace
}  // namespace gantry::sim
