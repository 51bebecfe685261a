// What an agent is sent for a part (actors/core_views.hpp, prepare_message):
// a whole gang with a network-topology constraint carries the hub's tier
// labels, so that the agent's own fit, when the hub's nodes no longer fit,
// stays within one domain (tests/agents/admission_test.cpp); every part
// carries the gang as the core holds it, which the agent admits.
#include <memory>

#include "actors/core_views.hpp"
#include "hub/gang_wire.hpp"
#include "hub/job_request.hpp"
#include "tests/core/core_harness.hpp"

namespace gantry::actors {
namespace {

hub::SchedulerOptions racks_on_label_rack() {
  hub::SchedulerOptions options;
  options.topology_tiers.set_label(1, "rack");
  return options;
}

class PrepareMessageTest : public hub::testing::CoreHarness {
 protected:
  PrepareMessageTest() : CoreHarness(racks_on_label_rack()) {}
  void SetUp() override {
    add_cluster("east", hub::testing::nodes(2, 8, 64, "east", {{"rack", "r1"}}));
  }

  // One task of `replicas` 8-GPU workers; `topology`: networkTopology mode.
  protocol::Prepare prepared(const std::string& name, const std::string& topology) {
    auto spec = std::make_shared<protocol::JobSpec>();
    spec->name = name;
    spec->network_topology = {topology, topology.empty() ? 0 : 1};
    protocol::TaskSpec task;
    task.name = "worker";
    task.replicas = 2;
    protocol::ContainerSpec container;
    container.name = "worker";
    container.requests = {{"nvidia.com/gpu", 8000}};
    task.containers.push_back(container);
    spec->tasks.push_back(task);
    const hub::JobId id = submit(hub::make_job_request(spec));
    pass();
    const hub::Dispatch* dispatch = core.find_dispatch(core.job(id).dispatch);
    EXPECT_NE(dispatch, nullptr) << name << " was not placed";
    return dispatch ? prepare_message(core, *dispatch, 0) : protocol::Prepare{};
  }
};

TEST_F(PrepareMessageTest, AWholeGangWithANetworkTopologyCarriesTheHubsTierLabels) {
  const protocol::Prepare prepare = prepared("ring", "hard");
  ASSERT_FALSE(prepare.topology_tier_labels.empty());
  EXPECT_EQ(prepare.topology_tier_labels.front(), "rack");
  EXPECT_EQ(prepare.topology_tier_labels, core.topology_tiers().labels());
}

TEST_F(PrepareMessageTest, APartCarriesTheGangAsTheCoreHoldsIt) {
  const protocol::Prepare prepare = prepared("held", "hard");
  ASSERT_EQ(prepare.gang.tasks.size(), 1u);
  EXPECT_EQ(prepare.gang.tasks[0].name, "worker");
  EXPECT_EQ(prepare.gang.tasks[0].replicas, 2);
  EXPECT_EQ(prepare.gang.tasks[0].per_replica.at("nvidia.com/gpu"), 8000);
  EXPECT_EQ(prepare.gang.min_available, 2);
  EXPECT_EQ(prepare.gang.topology.mode, "hard");
  EXPECT_EQ(prepare.gang, hub::gang_to_wire(core.job(*core.find_job("held")).gang));
}

TEST_F(PrepareMessageTest, AGangWithoutTopologyCarriesNone) {
  EXPECT_TRUE(prepared("plain", "").topology_tier_labels.empty());
}

}  // namespace
}  // namespace gantry::actors
