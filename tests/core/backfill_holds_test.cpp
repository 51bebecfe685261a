// A pass's reservation holds (hub/backfill.hpp, the arithmetic in
// hub/reservation.hpp) on hand-made clusters, outside any SchedulerCore;
// planning and reserving within a pass are tested in backfill_test.
#include <gtest/gtest.h>

#include <vector>

#include "core_fixtures.hpp"
#include "hub/backfill.hpp"

namespace gantry::hub {
namespace {

using testing::gpus;
using testing::nodes;
using testing::ready_cluster;

constexpr TimeMs kStart = 10'000;  // the reserved job's planned start

// Job 0 is reserved on node 0 of the one cluster at kStart. It needs 8 GPUs
// there; running jobs free `freed_by_start` of them by then.
Reservation reservation_on_node_0(std::int64_t freed_by_start) {
  Reservation reservation;
  reservation.job = 0;
  reservation.cluster = 0;
  reservation.start = kStart;
  ReservedNode node{0, gpus(8), gpus(8 - freed_by_start), gpus(8 - freed_by_start)};
  reservation.nodes.push_back(node);
  return reservation;
}

std::int64_t free_gpus(const ClusterState& cluster, NodeIndex node) {
  return cluster.node(node).free.gpus();
}

// A one-part dispatch that placed `gpu_count` GPUs on node 0 of cluster 0.
Dispatch placed_on_node_0(std::int64_t gpu_count) {
  Dispatch dispatch;
  DispatchPart& part = dispatch.parts.emplace_back();
  part.cluster = 0;
  part.assignment.push_back(NodeAssignment{0, 0, gpus(gpu_count)});
  return dispatch;
}

class BackfillHoldsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    clusters_.push_back(ready_cluster("one", nodes(2, 8)));
    backfill_.add_cluster();
    jobs_.resize(2);
    backfill_.begin_pass();
  }

  std::vector<ClusterState> clusters_;
  std::vector<Job> jobs_;
  Backfill backfill_;
};

TEST_F(BackfillHoldsTest, AHoldTakesWhatRunningJobsWillNotHaveFreedByTheStart) {
  backfill_.hold(clusters_, reservation_on_node_0(3));
  EXPECT_TRUE(backfill_.holding());
  EXPECT_TRUE(backfill_.reserved(0));
  EXPECT_FALSE(backfill_.reserved(1));
  EXPECT_EQ(free_gpus(clusters_[0], 0), 3) << "5 of 8 held; the 3 freed by the start are not";
  EXPECT_EQ(free_gpus(clusters_[0], 1), 8);
}

TEST_F(BackfillHoldsTest, OnlyAJobEndingByTheStartOrTheReservedJobBorrowsTheHold) {
  backfill_.hold(clusters_, reservation_on_node_0(0));
  backfill_.lend_holds(clusters_, 1, kStart + 1);
  EXPECT_EQ(free_gpus(clusters_[0], 0), 0) << "job 1 would still run at the start";
  backfill_.settle_holds(clusters_, nullptr);
  backfill_.lend_holds(clusters_, 1, kStart);
  EXPECT_EQ(free_gpus(clusters_[0], 0), 8) << "job 1 ends by the start";
  backfill_.settle_holds(clusters_, nullptr);
  EXPECT_EQ(free_gpus(clusters_[0], 0), 0) << "nothing placed: the whole hold is back";
  backfill_.lend_holds(clusters_, 0, kNever);
  EXPECT_EQ(free_gpus(clusters_[0], 0), 8) << "the reserved job may take its own hold";
}

TEST_F(BackfillHoldsTest, WhatAShortJobTookOnAReservedNodeShrinksTheHold) {
  backfill_.hold(clusters_, reservation_on_node_0(0));
  backfill_.lend_holds(clusters_, 1, kStart);
  clusters_[0].take(0, gpus(3));  // job 1 placed 3 GPUs on node 0: back by the start
  const Dispatch placed = placed_on_node_0(3);
  backfill_.settle_holds(clusters_, &placed);
  EXPECT_EQ(free_gpus(clusters_[0], 0), 0) << "3 taken by job 1, 5 held";
  backfill_.end_pass(clusters_, jobs_);
  EXPECT_EQ(free_gpus(clusters_[0], 0), 5) << "the hold (now 5) is given back, job 1's 3 stay";
}

TEST_F(BackfillHoldsTest, AnEvictionFreeingWhatThePlanCountedOnMakesTheHoldTakeIt) {
  clusters_[0].take(0, gpus(3));                        // a run planned to end by the start
  backfill_.hold(clusters_, reservation_on_node_0(3));  // the other 5 are held
  ASSERT_EQ(free_gpus(clusters_[0], 0), 0);
  const Dispatch evicted = placed_on_node_0(3);
  clusters_[0].give(0, gpus(3));  // the run is evicted now
  backfill_.release_seen(clusters_, evicted.parts, kStart + 1);
  EXPECT_EQ(free_gpus(clusters_[0], 0), 3) << "a run planned past the start was never counted on";
  backfill_.release_seen(clusters_, evicted.parts, kStart);
  EXPECT_EQ(free_gpus(clusters_[0], 0), 0) << "the plan counted on those 3: the hold grew to 8";
  backfill_.end_pass(clusters_, jobs_);
  EXPECT_EQ(free_gpus(clusters_[0], 0), 8);
}

TEST_F(BackfillHoldsTest, EndingThePassGivesHoldsBackAndRecordsThePlannedStartUntilTheNext) {
  backfill_.hold(clusters_, reservation_on_node_0(0));
  backfill_.end_pass(clusters_, jobs_);
  EXPECT_EQ(free_gpus(clusters_[0], 0), 8);
  const PlannedStart* planned = planned_start(jobs_[0]);
  ASSERT_NE(planned, nullptr);
  EXPECT_EQ(planned->start, kStart);
  EXPECT_EQ(planned->cluster, 0u);
  EXPECT_EQ(planned->nodes, std::vector<NodeIndex>{0});
  EXPECT_EQ(planned_start(jobs_[1]), nullptr);
  backfill_.begin_pass();
  EXPECT_FALSE(backfill_.holding());
  backfill_.end_pass(clusters_, jobs_);
  EXPECT_EQ(planned_start(jobs_[0]), nullptr) << "not reserved in the next pass";
}

TEST_F(BackfillHoldsTest, PlannedEndsAreKeptSoonestFirstAndMoveWithTheirRun) {
  backfill_.move_end(0, 7, kNever, kStart);
  backfill_.move_end(0, 8, kNever, kStart - 1);
  ASSERT_EQ(backfill_.ends_on(0).size(), 2u);
  EXPECT_EQ(backfill_.ends_on(0).begin()->second, 8u) << "soonest first";
  backfill_.move_end(0, 8, kStart - 1, kNever);
  EXPECT_EQ(backfill_.ends_on(0).size(), 1u);
}

}  // namespace
}  // namespace gantry::hub
