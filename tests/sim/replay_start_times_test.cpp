// Exact start times of the hand-made trace (hand_trace.hpp), worked out by
// hand from the core's rules: completions at t are applied before submissions
// at t; nodes are chosen best-fit; in pooled mode clusters are ranked by the
// default placement, binpack: fewest free GPUs left on the nodes the gang
// would take, ties to the most packed cluster, then the lower index.
#include <gtest/gtest.h>

#include "sim/replay.hpp"
#include "tests/sim/hand_trace.hpp"

namespace gantry::sim {
namespace {

using namespace testing;  // the hand-made trace

ReplayResult run(Mode mode, Policy policy) {
  return replay(hand_clusters(), hand_traces(), ReplayConfig{mode, policy});
}

// ca: a1, a2 fill both nodes at 0; a3 (16) waits for both, at 100; a4 is
// behind a3 and waits for it to end: 200.
// cb: b1 (4) at 0; b2 (8) waits for b1's end: 60; b3 and b4 are behind b2 and
// start together when it ends: 100.
TEST(ReplayStartTimes, IsolatedFifoHeadBlocksItsOwnClusterOnly) {
  EXPECT_EQ(start_seconds(run(Mode::kIsolated, Policy::kFifo)),
            (Starts{0, 0, 100, 200, 0, 60, 100, 100}));
}

// ca: a4 (4) skips a3 and takes a2's node when a2 ends: 50 (ends 80, before a3 could start).
// cb: b3 (2) fits beside b1 at 10; b4 (4) waits for b3's end: 30; b2 still waits for b1: 60.
TEST(ReplayStartTimes, IsolatedFirstFitSkipsWhatDoesNotFit) {
  EXPECT_EQ(start_seconds(run(Mode::kIsolated, Policy::kFirstFit)),
            (Starts{0, 0, 100, 50, 0, 60, 10, 30}));
}

// One queue in submission order: a1 a2 b1 | b2 | a3 b3 | b4 | a4.
// 0: a1 -> cb (0 GPUs left on its node either way; cb is the more packed),
// a2 -> ca, b1 -> ca's other node (4 left).
// b2 (8) blocks everything until a2 ends at 50 (ca: 8 + 4 free) -> b2 at 50.
// a3 (16) needs ca empty: b1 ends 60, b2 ends 90 -> a3 at 90.
// a1 ends 100, cb empty -> b3 (2) and b4 (4) at 100; a4 (4) waits for b4: 110.
TEST(ReplayStartTimes, PooledFifoUsesAnyCluster) {
  EXPECT_EQ(start_seconds(run(Mode::kPooled, Policy::kFifo)),
            (Starts{0, 0, 90, 110, 0, 50, 100, 100}));
}

// 0 as above (ca: one node empty-of-room, one with 4 free). b3 (2) at 10 on
// the 4-free node; b4 (4) when b3 ends: 30; a4 (4) when b4 ends: 40; b2 (8)
// when a2 ends: 50; a3 (16) when b2 ends and a4 has gone: 90.
TEST(ReplayStartTimes, PooledFirstFitSkipsWhatDoesNotFit) {
  EXPECT_EQ(start_seconds(run(Mode::kPooled, Policy::kFirstFit)),
            (Starts{0, 0, 90, 40, 0, 50, 10, 30}));
}

TEST(ReplayStartTimes, StartTimesAreTheCoreStartTimesAndClustersAreRecorded) {
  const ReplayResult result = run(Mode::kIsolated, Policy::kFifo);
  for (const JobOutcome& job : result.jobs) {
    EXPECT_TRUE(job.ran);
    EXPECT_EQ(job.cluster, job.trace);  // isolated: each job on its own trace's cluster
  }
}

// A job larger than every cluster it may use is reported, not waited for
// forever; the rest of its strict-FIFO queue still runs.
TEST(ReplayUnschedulable, IsolatedJobTooLargeForItsClusterIsLeftOut) {
  auto traces = hand_traces();
  traces[1].jobs.insert(traces[1].jobs.begin() + 1, TraceJob{"b-huge", 1, 10, 16});
  const ReplayResult result =
      replay(hand_clusters(), traces, ReplayConfig{Mode::kIsolated, Policy::kFifo});
  EXPECT_EQ(start_seconds(result), (Starts{0, 0, 100, 200, 0, -1, 60, 100, 100}));
}

TEST(ReplayUnschedulable, PooledJobRunsWhereItFits) {
  auto traces = hand_traces();
  traces[1].jobs = {TraceJob{"b-huge", 0, 10, 16}};
  traces[0].jobs.clear();
  const ReplayResult result =
      replay(hand_clusters(), traces, ReplayConfig{Mode::kPooled, Policy::kFifo});
  ASSERT_EQ(result.jobs.size(), 1u);
  EXPECT_TRUE(result.jobs[0].ran);
  EXPECT_EQ(result.jobs[0].cluster, 0u);
}

}  // namespace
}  // namespace gantry::sim
