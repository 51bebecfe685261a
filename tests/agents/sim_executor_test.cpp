// Simulated replicas: their timing follows the clock the caller passes in.
#include "agents/sim_executor.hpp"

#include <gtest/gtest.h>

#include "agent_test_support.hpp"

namespace gantry::agents {
namespace {

ReplicaLaunch launch_of(const protocol::JobSpec& job, std::uint64_t dispatch, std::uint32_t rank) {
  ReplicaLaunch launch;
  launch.key = ReplicaKey{dispatch, rank};
  launch.job = &job;
  return launch;
}

protocol::JobSpec job_with(protocol::Labels annotations) {
  return testing::make_prepare(1, "sim", {{"worker", 2}}, 0, std::move(annotations)).job;
}

TEST(SimExecutor, ReplicaEndsAfterTheAnnotatedDurationWithTheAnnotatedCode) {
  const protocol::JobSpec job =
      job_with({{"gantry.io/sim-duration", "0.25"}, {"gantry.io/sim-exit-code", "3"}});
  SimExecutor executor;
  EXPECT_EQ(executor.check(job), "");
  executor.start(launch_of(job, 1, 0), 10'000);
  executor.start(launch_of(job, 1, 1), 10'100);
  EXPECT_EQ(executor.next_deadline(), 10'250);

  std::vector<ReplicaExit> exits;
  executor.collect_exits(10'249, exits);
  EXPECT_TRUE(exits.empty());
  executor.collect_exits(10'250, exits);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].key, (ReplicaKey{1, 0}));
  EXPECT_EQ(exits[0].exit_code, 3);
  EXPECT_EQ(exits[0].signal, 0);
  EXPECT_EQ(executor.next_deadline(), 10'350);

  exits.clear();
  executor.collect_exits(20'000, exits);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].key, (ReplicaKey{1, 1}));
  EXPECT_EQ(executor.next_deadline(), std::nullopt);
  EXPECT_EQ(executor.running(), 0u);
}

TEST(SimExecutor, DefaultsToOneSecondAndExitCodeZero) {
  const protocol::JobSpec job = job_with({});
  SimExecutor executor;
  executor.start(launch_of(job, 1, 0), 0);
  EXPECT_EQ(executor.next_deadline(), 1000);
  std::vector<ReplicaExit> exits;
  executor.collect_exits(999, exits);
  EXPECT_TRUE(exits.empty());
  executor.collect_exits(1000, exits);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].exit_code, 0);
}

TEST(SimExecutor, KilledReplicaIsReportedAtOnceAndNeverEndsAgain) {
  const protocol::JobSpec job = job_with({{"gantry.io/sim-duration", "5"}});
  SimExecutor executor;
  executor.start(launch_of(job, 4, 0), 0);
  executor.kill(ReplicaKey{4, 0});
  executor.kill(ReplicaKey{4, 9});  // unknown: nothing to report
  ASSERT_TRUE(executor.next_deadline().has_value());
  EXPECT_LE(*executor.next_deadline(), 0);
  std::vector<ReplicaExit> exits;
  executor.collect_exits(1, exits);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].signal, 9);
  EXPECT_EQ(exits[0].exit_code, 137);
  exits.clear();
  executor.collect_exits(10'000, exits);
  EXPECT_TRUE(exits.empty());
}

TEST(SimExecutor, BadAnnotationsAreRefusedNamingTheAnnotation) {
  SimExecutor executor;
  EXPECT_NE(executor.check(job_with({{"gantry.io/sim-duration", "soon"}}))
                .find("metadata.annotations[gantry.io/sim-duration]"),
            std::string::npos);
  EXPECT_NE(executor.check(job_with({{"gantry.io/sim-duration", "-1"}})), "");
  EXPECT_NE(executor.check(job_with({{"gantry.io/sim-exit-code", "256"}}))
                .find("metadata.annotations[gantry.io/sim-exit-code]"),
            std::string::npos);
  EXPECT_EQ(sim_behaviour(job_with({{"gantry.io/sim-duration", "0"}})).duration_ms, 0);
  EXPECT_EQ(sim_behaviour(job_with({{"gantry.io/sim-duration", "1.5"}})).duration_ms, 1500);
}

}  // namespace
}  // namespace gantry::agents
