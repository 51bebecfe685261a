// The queue stage (hub/queue_stage.hpp) through a core: which jobs of a queue
// a pass looks at, and what the ones it leaves unvisited show. That skipping
// decides exactly as a full pass is proven in incremental_pass_test.cpp.
#include <gtest/gtest.h>

#include "tests/core/core_harness.hpp"

namespace gantry::hub::testing {
namespace {

class QueueStageTest : public CoreHarness {};

// Three gangs of one shape larger than any cluster: the first is tried (and gets
// the pass's one reservation try), its failure covers the class, and its
// queue may not search for victims again in the pass, so the other two are
// left unvisited. Each still shows why it waits, as if it had been tried.
TEST_F(QueueStageTest, JobsLeftUnvisitedWithTheirClassShowTheReasonTheClassFailedFor) {
  add_cluster("c", nodes(1, 8));
  for (const char* name : {"big-1", "big-2", "big-3"}) submit(gpu_job(name, 16));
  const std::uint64_t attempts_before = core.placement_attempts();
  EXPECT_TRUE(scheduled_names().empty());
  EXPECT_EQ(core.placement_attempts() - attempts_before, 1u);

  const std::string tried = core.reason_text(job("big-1"));
  EXPECT_EQ(core.pending_reason(job("big-1")).kind, PendingReason::Kind::kExceedsEveryCluster);
  for (const char* name : {"big-2", "big-3"}) {
    EXPECT_EQ(core.pending_reason(job(name)).kind, PendingReason::Kind::kExceedsEveryCluster)
        << name;
    EXPECT_EQ(core.reason_text(job(name)), tried) << name;
  }
}

// A job of another shape behind them is still tried: only a queue whose
// every remaining class is known to fail is left.
TEST_F(QueueStageTest, AJobOfAnotherShapeBehindAClassKnownToFailIsStillTried) {
  add_cluster("c", nodes(1, 8));
  submit(gpu_job("big-1", 16));
  submit(gpu_job("big-2", 16));
  submit(gpu_job("small", 2));
  EXPECT_EQ(scheduled_names(), std::vector<std::string>{"small"});
}

}  // namespace
}  // namespace gantry::hub::testing
