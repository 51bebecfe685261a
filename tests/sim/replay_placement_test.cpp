// The replay's placement flags on hand-made traces: the placement policy the
// core ranks clusters and nodes by (--placement), and gangs split across
// clusters (--split), worked out by hand from hub/placement_policy.hpp and
// hub/split.cpp.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "sim/replay.hpp"
#include "tests/sim/hand_trace.hpp"

namespace gantry::sim {
namespace {

using namespace testing;  // the hand-made clusters: ca 2 nodes, cb 1 node, 8 GPUs each

ReplayConfig pooled(Policy policy, const std::string& placement, bool split = false) {
  ReplayConfig config{Mode::kPooled, policy};
  config.placement = placement;
  config.split = split;
  return config;
}

// Only ca's trace has jobs; cb's is empty (pooled: any job may use any cluster).
std::vector<Trace> ca_jobs(std::vector<TraceJob> jobs) {
  return {Trace{"ca", std::move(jobs)}, Trace{"cb", {}}};
}

// Two 4-GPU jobs at 0 (running 100 s), then a 16-GPU gang at 1.
// binpack: the first 4-GPU job leaves 4 GPUs free on its node in either
// cluster; the tie goes to the most packed cluster, cb. The second fills cb's
// node (0 left, against 4 on ca). ca stays empty: the gang starts at 1.
// spread: both go to ca (16 then 12 free GPUs, against cb's 8), each on the
// node with the most free GPUs: 4 + 4 free on ca and 8 on cb hold no two whole
// nodes in one cluster, so the gang waits for them to end at 100.
TEST(ReplayPlacement, BinpackKeepsWholeNodesFreeWhereSpreadDoesNot) {
  const auto traces = ca_jobs({{"p1", 0, 100, 4}, {"p2", 0, 100, 4}, {"p3", 1, 10, 16}});
  for (Policy policy : {Policy::kFifo, Policy::kFirstFit}) {
    const ReplayResult binpack = replay(hand_clusters(), traces, pooled(policy, "binpack"));
    const ReplayResult spread = replay(hand_clusters(), traces, pooled(policy, "spread"));
    EXPECT_EQ(start_seconds(binpack), (Starts{0, 0, 1}));
    EXPECT_EQ(start_seconds(spread), (Starts{0, 0, 100}));
    EXPECT_EQ(binpack.jobs[0].cluster, 1u);
    EXPECT_EQ(binpack.jobs[1].cluster, 1u);
    EXPECT_EQ(spread.jobs[0].cluster, 0u);
    EXPECT_EQ(spread.jobs[1].cluster, 0u);
  }
}

TEST(ReplayPlacement, GpuAvailableRunsEveryJob) {
  const ReplayResult result =
      replay(hand_clusters(), hand_traces(), pooled(Policy::kFirstFit, "gpu-available"));
  for (const JobOutcome& job : result.jobs) EXPECT_TRUE(job.ran);
}

// 24 GPUs = 3 replicas of 8: neither cluster holds it (ca has 2 nodes, cb 1).
// Split, it takes ca's two nodes (part 0, the cluster holding the most
// replicas) and cb's one, at once.
TEST(ReplaySplit, PlacesAGangNoSingleClusterFits) {
  const auto traces = ca_jobs({{"s1", 0, 50, 24}});
  for (Policy policy : {Policy::kFifo, Policy::kFirstFit}) {
    const ReplayResult whole = replay(hand_clusters(), traces, pooled(policy, "binpack"));
    EXPECT_EQ(start_seconds(whole), (Starts{-1}));  // unschedulable without --split
    const ReplayResult split = replay(hand_clusters(), traces, pooled(policy, "binpack", true));
    EXPECT_EQ(start_seconds(split), (Starts{0}));
    EXPECT_EQ(split.jobs[0].parts, 2);
    EXPECT_EQ(split.jobs[0].cluster, 0u);
  }
}

// An 8-GPU job takes cb's node (binpack: the most packed of two equal fits);
// the 24-GPU gang at 1 finds only ca's two nodes free and waits for the whole
// pool at 100. A job that only fits in one cluster is never split.
TEST(ReplaySplit, WaitsUntilTheClustersTogetherHaveRoom) {
  const auto traces = ca_jobs({{"x1", 0, 100, 8}, {"s1", 1, 50, 24}, {"x2", 200, 10, 16}});
  const ReplayResult result =
      replay(hand_clusters(), traces, pooled(Policy::kFirstFit, "binpack", true));
  EXPECT_EQ(start_seconds(result), (Starts{0, 100, 200}));
  EXPECT_EQ(result.jobs[0].parts, 1);
  EXPECT_EQ(result.jobs[1].parts, 2);
  EXPECT_EQ(result.jobs[2].parts, 1);
}

// 32 GPUs = 4 whole nodes: the pool has 3. Left out as unschedulable even
// with --split, and the strict-FIFO queue behind it still runs.
TEST(ReplaySplit, AGangLargerThanThePoolIsStillUnschedulable) {
  const auto traces = ca_jobs({{"big", 0, 10, 32}, {"x1", 1, 10, 8}});
  const ReplayResult result =
      replay(hand_clusters(), traces, pooled(Policy::kFifo, "binpack", true));
  EXPECT_EQ(start_seconds(result), (Starts{-1, 1}));
}

// The core splits a gang into at most SchedulerOptions::max_split_parts (8)
// parts; the unschedulable check counts parts the same way: on nine
// one-node clusters a 64-GPU gang (8 parts) runs, a 72-GPU gang (9) never could.
TEST(ReplaySplit, CountsPartsAsTheCoreDoes) {
  std::vector<SimCluster> clusters;
  std::vector<Trace> traces;
  for (int c = 0; c < 9; ++c) {
    const std::string name = "c" + std::to_string(c);
    clusters.push_back(SimCluster{name, identical_gpu_nodes(name, 1)});
    traces.push_back(Trace{name, {}});
  }
  traces[0].jobs = {{"g64", 0, 10, 64}, {"g72", 1, 10, 72}};
  const ReplayResult result = replay(clusters, traces, pooled(Policy::kFifo, "binpack", true));
  EXPECT_EQ(start_seconds(result), (Starts{0, -1}));
  EXPECT_EQ(result.jobs[0].parts, 8);
}

TEST(ReplayConfigCheck, RefusesSplitInIsolatedModeAndUnknownPlacements) {
  ReplayConfig isolated{Mode::kIsolated, Policy::kFifo};
  isolated.split = true;
  EXPECT_THROW(replay(hand_clusters(), hand_traces(), isolated), std::invalid_argument);
  try {
    replay(hand_clusters(), hand_traces(), pooled(Policy::kFifo, "best"));
    FAIL() << "no error";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(),
                 "--placement: expected one of binpack, spread, gpu-available, topology (got \"best\")");
  }
}

}  // namespace
}  // namespace gantry::sim
