// A usage report that says why its cluster takes no work yet ("syncing": a
// cluster-role agent whose Kubernetes view has not listed every Node and Pod)
// keeps the cluster not ready, with that reason, until a report without one.
#include <gtest/gtest.h>

#include "tests/core/reconciler_harness.hpp"

namespace gantry::hub {
namespace {

class AgentNotReadyTest : public testing::ReconcilerHarness {
 protected:
  AgentNotReadyTest() {
    Outbox out;
    reconciler.on_hello(protocol::Hello{"west", {}, "test", {}, {}}, now, out);
  }
  Outbox usage(const std::string& not_ready_reason, int nodes) {
    protocol::UsageReport report{"west", {}, {}, {}, not_ready_reason};
    for (int i = 0; i < nodes; ++i)
      report.nodes.push_back(protocol::NodeUsage{
          "west-" + std::to_string(i), {}, {{"nvidia.com/gpu", 8000}}, {}, "", {}, {}});
    Outbox out;
    reconciler.on_usage(report, now, out);
    return out;
  }
  const ClusterState& west() const { return core.cluster(*core.find_cluster("west")); }
  JobId submit_one() {
    JobRequest request;
    request.name = "gang";
    request.gang = make_uniform_gang(1, testing::gpus(8));
    request.gang.tasks[0].name = "worker";
    return CoreHarness::submit(std::move(request));
  }
};

TEST_F(AgentNotReadyTest, ASyncingClusterIsNotReadyWithItsReasonAndGetsNothing) {
  const Outbox out = usage("syncing", 0);
  EXPECT_FALSE(west().ready());
  EXPECT_EQ(west().agent_not_ready_reason(), "syncing");
  ASSERT_EQ(out.log.size(), 1u);
  EXPECT_EQ(out.log[0].text, "cluster west not ready: its agent says syncing");
  submit_one();
  EXPECT_TRUE(core.schedule(now).empty());
}

TEST_F(AgentNotReadyTest, TheFirstReportWithoutAReasonMakesItReady) {
  usage("syncing", 0);
  usage("", 2);
  EXPECT_TRUE(west().ready());
  EXPECT_EQ(west().agent_not_ready_reason(), "");
  EXPECT_EQ(west().node_count(), 2u);
  submit_one();
  EXPECT_EQ(core.schedule(now).size(), 1u);
}

TEST_F(AgentNotReadyTest, AReadyClusterWhoseNewAgentSyncsTurnsNotReadyAndStaysSoWhenHeard) {
  usage("", 2);  // the old leader
  ASSERT_TRUE(west().ready());
  usage("syncing", 0);  // a new leader, its view not listed yet
  EXPECT_FALSE(west().ready());
  EXPECT_EQ(west().node_count(), 2u) << "a syncing report's empty node list is not taken";
  Outbox out;
  reconciler.on_cluster_silent("west", now, out);
  reconciler.on_cluster_heard("west", now, out);
  EXPECT_FALSE(west().ready()) << "heard again, it still syncs";
  EXPECT_TRUE(usage("syncing", 0).log.empty()) << "said once";
}

}  // namespace
}  // namespace gantry::hub
