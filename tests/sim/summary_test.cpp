// The figures of the hand-made trace under isolated strict FIFO, worked out
// from the start times in replay_start_times_test.cpp:
//   waits a1..a4 = 0 0 90 180, b1..b4 = 0 55 90 85; durations 100 50 100 30 | 60 40 20 10.
#include "sim/summary.hpp"

#include <gtest/gtest.h>

#include "tests/sim/hand_trace.hpp"

namespace gantry::sim {
namespace {

ReplayResult isolated_fifo() {
  return replay(testing::hand_clusters(), testing::hand_traces(),
                ReplayConfig{Mode::kIsolated, Policy::kFifo});
}

TEST(Summary, AllJobs) {
  const Summary s = summarize(isolated_fifo().jobs, std::nullopt, 24);
  EXPECT_EQ(s.jobs, 8u);
  EXPECT_EQ(s.unschedulable, 0u);
  EXPECT_DOUBLE_EQ(s.mean_wait_s, 500.0 / 8);  // 0+0+90+180+0+55+90+85
  EXPECT_DOUBLE_EQ(s.mean_jct_s, 910.0 / 8);   // waits + 410 s of durations
  EXPECT_DOUBLE_EQ(s.p50_wait_s, 55);          // sorted 0 0 0 55 | 85 90 90 180: 4th
  EXPECT_DOUBLE_EQ(s.p99_wait_s, 180);         // ceil(7.92) = 8th
  EXPECT_DOUBLE_EQ(s.max_wait_s, 180);
  EXPECT_DOUBLE_EQ(s.makespan_s, 230);  // a4 ends at 200 + 30
  // GPU-seconds: 800 400 1600 120 | 240 320 40 40 = 3560 over 24 GPUs x 230 s.
  EXPECT_DOUBLE_EQ(s.gpu_utilization, 3560.0 / (24 * 230));
}

TEST(Summary, OneTraceOnItsOwnCluster) {
  const Summary s = summarize(isolated_fifo().jobs, 1u, 8);
  EXPECT_EQ(s.jobs, 4u);
  EXPECT_DOUBLE_EQ(s.mean_wait_s, 230.0 / 4);
  EXPECT_DOUBLE_EQ(s.max_wait_s, 90);
  EXPECT_DOUBLE_EQ(s.makespan_s, 120);  // b3 ends at 100 + 20
  EXPECT_DOUBLE_EQ(s.gpu_utilization, 640.0 / (8 * 120));
}

TEST(Summary, UnschedulableJobsAreCountedButNotInTheFigures) {
  auto traces = testing::hand_traces();
  traces[1].jobs.push_back(TraceJob{"b-huge", 0, 1000000, 64});
  const auto result =
      replay(testing::hand_clusters(), traces, ReplayConfig{Mode::kIsolated, Policy::kFifo});
  const Summary s = summarize(result.jobs, std::nullopt, 24);
  EXPECT_EQ(s.jobs, 8u);
  EXPECT_EQ(s.unschedulable, 1u);
  EXPECT_DOUBLE_EQ(s.makespan_s, 230);
}

TEST(Summary, NearestRank) {
  const std::vector<double> values{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_DOUBLE_EQ(nearest_rank(values, 50), 5);
  EXPECT_DOUBLE_EQ(nearest_rank(values, 99), 10);
  EXPECT_DOUBLE_EQ(nearest_rank(values, 0), 1);
  EXPECT_DOUBLE_EQ(nearest_rank({}, 50), 0);
}

}  // namespace
}  // namespace gantry::sim
