// Job time limits through the hub's actors: the limit resolved at submit (the
// job's own, else its queue's default) travels to the agent in the Prepare
// and is shown by describe, a job over its queue's maximum is refused, and a
// queue's limits outlive a hub restart.
#include "hub_actors_fixture.hpp"

namespace gantry::actors {
namespace {

constexpr std::int64_t kHourMs = 3'600'000;

const std::string kLimitedQueue =
    "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: limited\n"
    "  annotations: {gantry.io/default-time-limit: 1h, gantry.io/max-time-limit: 4h}\n";

// `job_yaml` with metadata.annotations gantry.io/time-limit: `limit`.
std::string limited_job_yaml(const std::string& name, const std::string& limit,
                             const std::string& queue, int gpus = 1) {
  std::string yaml = job_yaml(name, 1, gpus, queue);
  const std::string metadata = "  name: " + name + "\n";
  yaml.insert(yaml.find(metadata) + metadata.size(),
              "  annotations: {gantry.io/time-limit: " + limit + "}\n");
  return yaml;
}

class TimeLimitTest : public HubActorsTest {
 protected:
  void apply_limited_queue() {
    const auto applied = ask<protocol::AdminResult>(protocol::ApplyRequest{kLimitedQueue});
    ASSERT_TRUE(applied.ok) << applied.error;
  }
};

TEST_F(TimeLimitTest, PrepareCarriesTheJobsOwnLimitOrItsQueuesDefault) {
  apply_limited_queue();
  register_cluster("west", 2, 8);
  sent();
  ASSERT_TRUE(submit(limited_job_yaml("own", "90m", "limited")).ok);
  EXPECT_EQ(only_prepare().second.time_limit_ms, 90 * 60'000);
  ASSERT_TRUE(submit(job_yaml("defaulted", 1, 1, "limited")).ok);
  EXPECT_EQ(only_prepare().second.time_limit_ms, kHourMs);
  ASSERT_TRUE(submit(job_yaml("unlimited", 1, 1)).ok);
  EXPECT_EQ(only_prepare().second.time_limit_ms, 0) << "the default queue sets no limit";

  EXPECT_EQ(job("own").time_limit_ms, 90 * 60'000) << "describe shows it";
  EXPECT_EQ(job("defaulted").time_limit_ms, kHourMs);
  EXPECT_EQ(job("unlimited").time_limit_ms, 0);
}

// Backfill (docs/backfill.md): the first job that cannot start is planned
// to start when the running job's limit ends, on the node it frees.
TEST_F(TimeLimitTest, DescribeShowsAReservedJobsPlannedStartAndNodes) {
  register_cluster("west", 2, 8);
  sent();
  ASSERT_TRUE(submit(limited_job_yaml("first", "1h", "default", 8)).ok);
  const std::string first_node = only_prepare().second.nodes.at(0).node;
  ASSERT_TRUE(submit(limited_job_yaml("second", "2h", "default", 8)).ok);
  sent();
  const hub::TimeMs placed_ms = now_ms();
  ASSERT_TRUE(submit(job_yaml("third", 1, 8)).ok);
  const protocol::JobInfo third = job("third");
  EXPECT_EQ(third.phase, "Pending");
  EXPECT_EQ(third.planned_start_ms, placed_ms + kHourMs) << "when first's limit ends";
  EXPECT_EQ(third.planned_cluster, "west");
  EXPECT_EQ(third.planned_nodes, std::vector<std::string>{first_node});
  EXPECT_EQ(job("first").planned_start_ms, 0) << "only a reserved pending job has a plan";
}

TEST_F(TimeLimitTest, JobOverItsQueuesMaximumIsRefusedNamingTheAnnotation) {
  apply_limited_queue();
  const auto refused = submit(limited_job_yaml("greedy", "5h", "limited"));
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.error.find("metadata.annotations.gantry.io/time-limit"), std::string::npos)
      << refused.error;
  EXPECT_NE(refused.error.find("at most 4h"), std::string::npos) << refused.error;
}

TEST_F(TimeLimitTest, QueueLimitsOutliveAHubRestart) {
  apply_limited_queue();
  stop();  // a new hub opens the same state directory
  start();
  EXPECT_FALSE(submit(limited_job_yaml("greedy", "5h", "limited")).ok) << "the maximum holds";
  register_cluster("west", 1, 8);
  sent();
  ASSERT_TRUE(submit(job_yaml("defaulted", 1, 1, "limited")).ok);
  EXPECT_EQ(only_prepare().second.time_limit_ms, kHourMs) << "and the default";
}

// A stored queue is parsed once, by the first queue actor, before the jobs
// restored into it; one that no longer parses is left out, not the others.
TEST_F(TimeLimitTest, AStoredQueueThatNoLongerParsesIsLeftOutAtRestart) {
  apply_limited_queue();
  stop();
  {
    SqliteJobStore store(dir.path());
    store.save_queue("broken",
                     "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n"
                     "  name: broken\nspec:\n  weight: 0\n");
  }
  start();
  EXPECT_FALSE(submit(job_yaml("lost", 1, 1, "broken")).ok) << "no queue \"broken\"";
  register_cluster("west", 1, 8);
  sent();
  ASSERT_TRUE(submit(job_yaml("defaulted", 1, 1, "limited")).ok);
  EXPECT_EQ(only_prepare().second.time_limit_ms, kHourMs) << "the queue before it came back";
}

}  // namespace
}  // namespace gantry::actors
