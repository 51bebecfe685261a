// What a pass remembers of the gangs that found no place (hub/failure_memo.hpp),
// on its own: which later jobs a failure answers for, and which are always
// tried.
#include "hub/failure_memo.hpp"

#include <gtest/gtest.h>

#include <deque>

#include "tests/core/core_fixtures.hpp"

namespace gantry::hub {
namespace {

constexpr TimeMs kNow = 10'000;
constexpr ShapeClassId kShape = 0;

class FailureMemoTest : public ::testing::Test {
 protected:
  FailureMemoTest() { memo.begin(kNow, 1); }

  // A job of `gpus` GPUs (8-GPU replicas) that found no place: short of GPUs.
  const Job& failed(std::int64_t gpus, TimeMs end = kNever) {
    Job& job = job_of(gpus);
    job.reason = PendingReason{PendingReason::Kind::kInsufficientCapacity};
    job.reason.resource = kGpu;
    memo.remember(job, binpack, end);
    return job;
  }
  Job& job_of(std::int64_t gpus) {
    return jobs.emplace_back(testing::job_of(make_gpu_gang(gpus, 8)));
  }

  const PlacementPolicy* binpack = find_placement_policy("binpack");
  const PlacementPolicy* spread = find_placement_policy("spread");
  std::deque<Job> jobs;  // the memo points at them, as at the core's jobs
  FailureMemo memo;
};

TEST_F(FailureMemoTest, AFailureAnswersForJobsAskingAtLeastAsMuchInTheirOwnNumbers) {
  failed(16);
  const Job& bigger = job_of(24);
  const std::optional<PendingReason> reason = memo.covering(bigger, binpack, kNever);
  ASSERT_TRUE(reason.has_value());
  EXPECT_EQ(reason->kind, PendingReason::Kind::kInsufficientCapacity);
  EXPECT_EQ(reason->replicas_needed, 3);
  EXPECT_EQ(reason->needed, 24 * kMilli);
  EXPECT_TRUE(memo.covering(job_of(16), binpack, kNever)) << "the same shape";
}

TEST_F(FailureMemoTest, SmallerJobsOtherNodeOrdersAndEarlierEndsAreTried) {
  failed(16, /*end=*/kNow + 60'000);
  EXPECT_FALSE(memo.covering(job_of(8), binpack, kNever)) << "asks less";
  EXPECT_FALSE(memo.covering(job_of(16), spread, kNever)) << "another node order";
  EXPECT_FALSE(memo.covering(job_of(16), binpack, kNow + 59'999))
      << "ends earlier: reservation holds may let it in";
  EXPECT_TRUE(memo.covering(job_of(16), binpack, kNow + 60'000));
}

TEST_F(FailureMemoTest, JobsWithTheirOwnViewOfThePoolAreNeitherAnsweredNorRemembered) {
  failed(8);
  Job& backed_off = job_of(8);
  backed_off.notes().backoffs.push_back(ClusterBackoff{0, 1, kNow + 1'000});
  EXPECT_FALSE(memo.covering(backed_off, binpack, kNever));
  Job& starving = job_of(8);
  starving.sla_waiting_ms = 1'000;
  starving.submitted_ms = kNow - 1'000;
  EXPECT_FALSE(memo.covering(starving, binpack, kNever)) << "past its SLA: holds are its own";

  memo.forget();
  memo.remember(starving, binpack, kNever);
  EXPECT_FALSE(memo.covering(job_of(8), binpack, kNever)) << "its failure proves nothing";
}

TEST_F(FailureMemoTest, AnEvictionForgetsEveryFailure) {
  failed(8);
  ASSERT_TRUE(memo.covers_shape(kShape, job_of(8), binpack, kNever));
  memo.forget();
  EXPECT_FALSE(memo.covering(job_of(8), binpack, kNever));
  EXPECT_FALSE(memo.covers_shape(kShape, job_of(8), binpack, kNever));
}

TEST_F(FailureMemoTest, AtMostThirtyTwoFailuresAreKept) {
  for (std::size_t i = 0; i < FailureMemo::kMaxFailures; ++i) failed(64 + 8 * i);
  failed(8);
  EXPECT_FALSE(memo.covering(job_of(8), binpack, kNever)) << "the 33rd was not kept";
}

TEST_F(FailureMemoTest, AClassIsComparedWithFailuresRememberedAfterItWasAsked) {
  const Job& prototype = job_of(16);
  EXPECT_FALSE(memo.covers_shape(kShape, prototype, binpack, kNever));
  failed(8);
  EXPECT_TRUE(memo.covers_shape(kShape, prototype, binpack, kNever))
      << "a failure remembered later is compared too";
  memo.reset_shape(kShape);
  memo.fit_shapes(2);
  EXPECT_FALSE(memo.covers_shape(1, job_of(4), binpack, kNever)) << "a new class, not covered";
  EXPECT_TRUE(memo.covers_shape(kShape, prototype, binpack, kNever));
}

}  // namespace
}  // namespace gantry::hub
