// After a restart no restored job is placed again until every stored job is
// back, the recovery grace is over, and every cluster that may still run one
// has reported or the lost grace ran out (actors/recovery_gate.hpp).
#include "actors/recovery_gate.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gantry::actors {
namespace {

struct Awaited {
  std::vector<std::string> clusters;
  int asked = 0;
  std::vector<std::string> operator()() {
    ++asked;
    return clusters;
  }
};

TEST(RecoveryGateTest, OpensOnlyOnceEveryStoredJobIsBackAndTheGraceIsOver) {
  RecoveryGate gate(2);
  Awaited none;
  auto awaited = [&none] { return none(); };
  gate.grace_over();
  EXPECT_FALSE(gate.may_end(awaited)) << "two jobs still on their way";
  gate.job_back();
  EXPECT_FALSE(gate.may_end(awaited)) << "one job still on its way";
  gate.job_back();
  EXPECT_TRUE(gate.may_end(awaited));
  EXPECT_EQ(none.asked, 1) << "the clusters are asked about only once the rest holds";

  RecoveryGate early(1);
  early.job_back();
  early.job_back();  // a dropped job counted twice never goes below zero
  EXPECT_FALSE(early.may_end(awaited)) << "the grace is not over";
  early.grace_over();
  EXPECT_TRUE(early.may_end(awaited));
}

TEST(RecoveryGateTest, WaitsForUnreportedClustersUntilTheLostGraceRunsOut) {
  RecoveryGate gate(0);
  Awaited west{{"west"}};
  auto awaited = [&west] { return west(); };
  gate.grace_over();
  EXPECT_FALSE(gate.may_end(awaited)) << "west may still run a restored job";
  west.clusters.clear();  // west reported
  EXPECT_TRUE(gate.may_end(awaited));

  RecoveryGate silent(0);
  Awaited east{{"east"}};
  auto still = [&east] { return east(); };
  silent.grace_over();
  EXPECT_FALSE(silent.may_end(still));
  silent.limit_over();  // east's agent has fenced its runs by now
  EXPECT_TRUE(silent.may_end(still));
}

}  // namespace
}  // namespace gantry::actors
