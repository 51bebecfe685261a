// Elastic runs on the agent (docs/elastic.md): a Resize that grows starts the
// added replicas with the new elastic epoch and world size, or refuses and
// holds nothing; one that shrinks stops the highest-index replicas without
// failing the part; GANTRY_ELASTIC_STATE is rewritten on every resize.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/temp_dir.hpp"
#include "tests/agents/agent_test_support.hpp"

namespace gantry::agents {
namespace {

using testing::allocated_gpus;
using testing::messages_of;
using testing::small_inventory;

class ElasticAgentTest : public ::testing::Test {
 protected:
  ElasticAgentTest() : core("test", small_inventory(), executor, options()) {}
  AgentCoreOptions options() const {
    AgentCoreOptions options;
    options.elastic_state_dir = (state_dir.path() / "elastic").string();
    return options;
  }

  // An elastic job of 4 one-GPU workers (minAvailable 2), running 2 here.
  void start_two_of_four() {
    protocol::Prepare prepare = testing::make_prepare(7, "elastic", {{"worker", 4, 1}}, 2);
    prepare.task_replicas["worker"] = 2;
    prepare.world_size = 2;
    testing::prepare_and_commit(core, prepare, now, out);
    ASSERT_EQ(executor.started.size(), 2u);
    out = {};
  }
  protocol::Resize resize_to(std::int32_t workers, std::uint32_t epoch) const {
    protocol::Resize resize;
    resize.dispatch_id = 7;
    resize.job = "elastic";
    resize.elastic_epoch = epoch;
    resize.task_replicas["worker"] = workers;
    resize.world_size = workers;
    return resize;
  }
  nlohmann::json state_file() const {
    std::ifstream file(state_dir.path() / "elastic" / "7.json");
    return nlohmann::json::parse(file);
  }
  const protocol::StatusUpdate last_status() const {
    const auto updates = messages_of<protocol::StatusUpdate>(out);
    return updates.empty() ? protocol::StatusUpdate{} : updates.back();
  }

  support::TempDir state_dir{"gantry-elastic"};
  testing::FakeExecutor executor;
  AgentCore core;
  Outbox out;
  TimeMs now = 1'000;
};

TEST_F(ElasticAgentTest, FirstReplicasSeeEpochZeroAndTheStateFile) {
  start_two_of_four();
  EXPECT_EQ(executor.started[0].elastic_epoch, 0u);
  EXPECT_EQ(executor.started[0].world_size, 2);
  EXPECT_NE(executor.started[0].elastic_state.find("7.json"), std::string::npos);
  EXPECT_EQ(state_file()["epoch"], 0);
  EXPECT_EQ(state_file()["world_size"], 2);
}

TEST_F(ElasticAgentTest, AGrowthStartsTheAddedReplicasWithTheNewEpoch) {
  start_two_of_four();
  core.on_resize(resize_to(4, 1), now, out);
  const auto answers = messages_of<protocol::Resized>(out);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_TRUE(answers[0].admitted) << answers[0].reason;
  ASSERT_EQ(executor.started.size(), 4u);
  for (std::size_t i = 2; i < 4; ++i) {
    EXPECT_EQ(executor.started[i].elastic_epoch, 1u);
    EXPECT_EQ(executor.started[i].world_size, 4);
    EXPECT_EQ(executor.started[i].index, static_cast<std::int32_t>(i));
    EXPECT_EQ(executor.started[i].rank, static_cast<std::int32_t>(i));
    EXPECT_EQ(executor.started[i].master_port, 29500);
  }
  EXPECT_EQ(allocated_gpus(core.usage_report()), 4);
  EXPECT_EQ(testing::task_status(last_status(), "worker")->running, 4);
  EXPECT_EQ(state_file()["epoch"], 1);
  EXPECT_EQ(state_file()["world_size"], 4);
}

TEST_F(ElasticAgentTest, AGrowthThatDoesNotFitIsRefusedAndHoldsNothing) {
  start_two_of_four();
  protocol::Resize too_big = resize_to(4, 1);
  too_big.task_replicas["worker"] = 4;
  // 10 GPUs here; a 4-GPU worker each would need 8 more than the 2 held.
  protocol::Prepare big = testing::make_prepare(8, "other", {{"other", 2, 4}});
  testing::prepare_and_commit(core, big, now, out);  // the A100 nodes' GPUs are now mostly taken
  out = {};
  const std::size_t started = executor.started.size();
  core.on_resize(too_big, now, out);
  const auto answers = messages_of<protocol::Resized>(out);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_FALSE(answers[0].admitted);
  EXPECT_FALSE(answers[0].reason.empty());
  EXPECT_EQ(executor.started.size(), started);
  EXPECT_EQ(allocated_gpus(core.usage_report()), 2 + 8);
}

TEST_F(ElasticAgentTest, AShrinkStopsTheHighestIndexReplicasWithoutFailingThePart) {
  start_two_of_four();
  core.on_resize(resize_to(4, 1), now, out);
  out = {};
  core.on_resize(resize_to(2, 2), now, out);
  ASSERT_EQ(executor.killed.size(), 2u);
  EXPECT_EQ(executor.killed[0].rank + executor.killed[1].rank, 2u + 3u);
  EXPECT_EQ(allocated_gpus(core.usage_report()), 2);
  // The stopped replicas exit by signal: no failure, the part still runs.
  core.on_exits({{executor.killed[0], 137, 9}, {executor.killed[1], 137, 9}}, out);
  const protocol::StatusUpdate status = last_status();
  EXPECT_EQ(status.phase, protocol::phase::kRunning);
  EXPECT_EQ(testing::task_status(status, "worker")->running, 2);
  EXPECT_EQ(testing::task_status(status, "worker")->failed, 0);
  EXPECT_EQ(state_file()["epoch"], 2);
  EXPECT_EQ(state_file()["world_size"], 2);
  // The two that stay complete the part.
  core.on_exits({{ReplicaKey{7, 0}, 0, 0}, {ReplicaKey{7, 1}, 0, 0}}, out);
  EXPECT_EQ(last_status().phase, protocol::phase::kCompleted);
}

TEST_F(ElasticAgentTest, ARepeatedResizeIsAnsweredAgainAndDoneOnce) {
  start_two_of_four();
  core.on_resize(resize_to(3, 1), now, out);
  core.on_resize(resize_to(3, 1), now, out);
  const auto answers = messages_of<protocol::Resized>(out);
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_TRUE(answers[1].admitted);
  EXPECT_EQ(executor.started.size(), 3u);
}

}  // namespace
}  // namespace gantry::agents
