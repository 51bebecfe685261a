// What the elastic growth stage asks for (hub/elastic_growth.hpp), on a
// hand-made dispatch; the stage within a pass is tested in elastic_test.
#include "hub/elastic_growth.hpp"

#include <gtest/gtest.h>

#include "core_fixtures.hpp"

namespace gantry::hub {
namespace {

using testing::gpus;

// A parameter server and 4 workers of 8 GPUs (at least 2), run in two parts:
// the server and one worker, then one more worker.
TaskShape task(const char* name, std::int32_t replicas, ResourceVector per_replica) {
  TaskShape shape;
  shape.name = name;
  shape.replicas = replicas;
  shape.per_replica = per_replica;
  return shape;
}

GangShape ps_and_workers() {
  GangShape gang;
  gang.tasks.push_back(task("ps", 1, gpus(0, 4)));
  gang.tasks.push_back(task("worker", 4, gpus(8, 8)));
  gang.min_available = 2;
  return gang;
}

Dispatch two_parts() {
  Dispatch dispatch;
  dispatch.parts.resize(2);
  dispatch.parts[0].task_replicas = {1, 1};
  dispatch.parts[1].task_replicas = {0, 1};
  return dispatch;
}

TEST(ElasticGrowth, MissingReplicasCountEveryPartAndTakeAsManyAsFit) {
  const GangShape missing = missing_replicas(two_parts(), ps_and_workers());
  ASSERT_EQ(missing.tasks.size(), 2u);
  EXPECT_EQ(missing.tasks[0].replicas, 0) << "the server runs";
  EXPECT_EQ(missing.tasks[1].replicas, 2) << "4 workers, one in each part";
  EXPECT_EQ(missing.min_available, 1);
  EXPECT_EQ(missing.tasks[1].per_replica, gpus(8, 8));
}

TEST(ElasticGrowth, AGrowthUnderWayIsNotCountedAsRunning) {
  Dispatch dispatch = two_parts();
  NodeAssignment grown;
  grown.task = 1;
  grown.amount = gpus(8, 8);
  dispatch.growing.push_back(grown);
  EXPECT_EQ(missing_replicas(dispatch, ps_and_workers()).tasks[1].replicas, 2);
  EXPECT_EQ(dispatch.part_replicas(1, 1, true), 2) << "what its Resize asks the last part to run";
}

TEST(ElasticGrowth, QuickTestLooksOnlyAtMissingTasks) {
  const Dispatch dispatch = two_parts();
  const GangShape gang = ps_and_workers();
  EXPECT_TRUE(any_missing_replica_fits(dispatch, gang, gpus(8, 8)));
  EXPECT_FALSE(any_missing_replica_fits(dispatch, gang, gpus(4, 64)))
      << "only a server would fit, and none is missing";
  Dispatch full = dispatch;
  full.parts[1].task_replicas = {0, 3};
  EXPECT_FALSE(any_missing_replica_fits(full, gang, gpus(64, 64)));
}

}  // namespace
}  // namespace gantry::hub
