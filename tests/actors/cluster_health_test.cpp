// Member clusters that go silent, get lost and come back (leases and
// fencing), and operators' cordon / uncordon / drain.
#include "hub_actors_fixture.hpp"

namespace gantry::actors {
namespace {

TEST_F(HubActorsTest, SilentClusterIsNotReadyAfterItsLeaseWhileItsJobKeepsRunning) {
  register_cluster("east", 2, 8);  // room for another job
  run(job_yaml("train", 1, 8));
  for (int i = 1; i < kLeaseTicks; ++i) {
    tick();
    EXPECT_TRUE(cluster_ready("east")) << "after " << i << " silent interval(s)";
  }
  tick();
  const auto clusters = ask<protocol::ListReply>(protocol::ListRequest{"clusters"}).clusters;
  ASSERT_EQ(clusters.size(), 1u);
  EXPECT_FALSE(clusters[0].ready);
  const protocol::JobInfo info = job("train");
  EXPECT_EQ(info.phase, "Running");
  EXPECT_EQ(info.requeues, 0);
  EXPECT_EQ(info.clusters, std::vector<std::string>{"east"});
  ASSERT_TRUE(submit(job_yaml("next", 1, 1)).ok);
  EXPECT_TRUE(frames_of<protocol::Prepare>(sent()).empty())
      << "no new placements on a silent cluster";

  // Any frame before the lost grace makes it live and ready again.
  from_agent("agent/east", protocol::Heartbeat{"east", 42});
  EXPECT_TRUE(cluster_ready("east"));
  EXPECT_EQ(job("train").phase, "Running");
}

TEST_F(HubActorsTest, ClusterSilentPastTheLostGraceIsLostAndItsJobRequeuedNamingIt) {
  register_cluster("east", 1, 8);
  run(job_yaml("train", 1, 8));
  for (int i = 0; i < kLostTicks - 1; ++i) tick();
  EXPECT_EQ(job("train").phase, "Running");
  tick();
  const protocol::JobInfo info = job("train");
  EXPECT_EQ(info.phase, "Pending");
  EXPECT_EQ(info.requeues, 1);
  EXPECT_NE(info.reason.find("cluster east was lost"), std::string::npos) << info.reason;
  EXPECT_TRUE(contains(job_events("train"), "requeued: cluster east was lost"));

  // The session is gone: the agent is told to say Hello again.
  sent();
  from_agent("agent/east", protocol::Heartbeat{"east", 42});
  const auto [peer, error] = only<protocol::ErrorReply>();
  EXPECT_EQ(peer, "agent/east");
  EXPECT_EQ(error.code, "not_registered");
}

TEST_F(HubActorsTest, ReturningAgentsStaleRunIsStoppedAndItsEndDoesNotChangeTheJob) {
  register_cluster("east", 1, 8);
  const protocol::Prepare stale = run(job_yaml("train", 1, 8)).second;
  register_cluster("west", 1, 8);
  for (int i = 0; i < kLostTicks; ++i) tick_beating({"west"});  // east is lost
  const auto [peer, moved] = only_prepare();
  ASSERT_EQ(peer, "agent/west");
  admit(peer, moved);
  report(peer, moved, "Running");
  sent();

  // East comes back (SIGCONT): its Hello still lists the run of the old dispatch.
  from_agent(
      "agent/east",
      protocol::Hello{"east",
                      {},
                      "test",
                      {{stale.dispatch_id, "train", {{"worker", "east-node-0"}}, 0, 1, true}},
                      {}});
  const auto [cancel_peer, cancel] = only<protocol::Cancel>();
  EXPECT_EQ(cancel_peer, "agent/east");
  EXPECT_EQ(cancel.dispatch_id, stale.dispatch_id);
  EXPECT_TRUE(contains(job_events("train"), "stale copy on east (dispatch " +
                                                std::to_string(stale.dispatch_id) + ") stopped"));
  from_agent("agent/east", usage_report("east", 1, 8));
  for (const char* end : {"Aborted", "Completed", "Failed"}) {
    from_agent("agent/east", protocol::StatusUpdate{stale.dispatch_id, "train", end, {}, "killed"});
    const protocol::JobInfo info = job("train");
    EXPECT_EQ(info.phase, "Running") << "after the stale run's " << end;
    EXPECT_EQ(info.clusters, std::vector<std::string>{"west"});
  }
}

TEST_F(HubActorsTest, CordonedClusterGetsNoNewPlacementsUntilUncordoned) {
  register_cluster("east", 1, 8);
  register_cluster("west", 1, 0);  // no GPUs: east is the only place for a GPU job
  const protocol::AdminResult cordoned = cluster_action("cordon", "east");
  EXPECT_TRUE(cordoned.ok) << cordoned.error;
  EXPECT_EQ(cordoned.message, "cluster/east cordoned");
  EXPECT_TRUE(cluster("east").cordoned);
  EXPECT_FALSE(cluster("west").cordoned);
  EXPECT_TRUE(cluster("east").ready) << "cordoned, not unready";
  sent();
  ASSERT_TRUE(submit(job_yaml("train", 1, 8)).ok);
  EXPECT_TRUE(frames_of<protocol::Prepare>(sent()).empty());
  EXPECT_EQ(job("train").phase, "Pending");

  const protocol::AdminResult uncordoned = cluster_action("uncordon", "east");
  EXPECT_TRUE(uncordoned.ok) << uncordoned.error;
  EXPECT_EQ(uncordoned.message, "cluster/east uncordoned");
  EXPECT_FALSE(cluster("east").cordoned);
  EXPECT_EQ(only_prepare().first, "agent/east");
}

TEST_F(HubActorsTest, CordonOfARunningJobsClusterLeavesTheJobRunning) {
  register_cluster("east", 1, 8);
  run(job_yaml("train", 1, 8));
  ASSERT_TRUE(cluster_action("cordon", "east").ok);
  EXPECT_TRUE(sent().empty()) << "nothing is stopped";
  EXPECT_EQ(job("train").phase, "Running");
}

TEST_F(HubActorsTest, ClusterActionsRefuseUnknownClustersAndActions) {
  register_cluster("east", 1, 8);
  const protocol::AdminResult unknown = cluster_action("cordon", "nowhere");
  EXPECT_FALSE(unknown.ok);
  EXPECT_EQ(unknown.error, "cluster \"nowhere\" not found");
  EXPECT_FALSE(cluster_action("drain", "nowhere").ok);
  const protocol::AdminResult bad = cluster_action("reboot", "east");
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.error, "action: unknown action \"reboot\" (expected cordon, uncordon or drain)");
  EXPECT_FALSE(cluster("east").cordoned);
}

TEST_F(HubActorsTest, DrainStopsTheJobAndMovesItOnlyOnceTheAgentReportsItsPartAborted) {
  register_cluster("east", 1, 8);
  const auto [east, first] = run(job_yaml("train", 1, 8));
  register_cluster("west", 1, 8);
  sent();

  const protocol::AdminResult drained = cluster_action("drain", "east");
  EXPECT_TRUE(drained.ok) << drained.error;
  EXPECT_EQ(drained.message, "cluster/east drained: 1 job(s) stopping");
  EXPECT_TRUE(cluster("east").cordoned);
  const auto after_drain = sent();
  const auto cancels = frames_of<protocol::Cancel>(after_drain);
  ASSERT_EQ(cancels.size(), 1u);
  EXPECT_EQ(cancels[0].first, "agent/east");
  EXPECT_EQ(cancels[0].second.dispatch_id, first.dispatch_id);
  EXPECT_TRUE(frames_of<protocol::Prepare>(after_drain).empty())
      << "not while it may still run on east";
  EXPECT_EQ(job("train").phase, "Running");
  EXPECT_TRUE(contains(job_events("train"), "stopping: cluster east is drained"));

  report(east, first, "Aborted", "stopped by the hub");
  const auto [peer, moved] = only_prepare();
  EXPECT_EQ(peer, "agent/west");
  EXPECT_NE(moved.dispatch_id, first.dispatch_id);
  EXPECT_EQ(job("train").phase, "Pending");
  EXPECT_EQ(job("train").requeues, 1);
  admit(peer, moved);
  EXPECT_EQ(job("train").phase, "Running");
  EXPECT_EQ(job("train").clusters, std::vector<std::string>{"west"});
}

TEST_F(HubActorsTest, CordonOutlivesARestart) {
  register_cluster("east", 1, 8);
  ASSERT_TRUE(cluster_action("drain", "east").ok);  // a drain cordons too
  register_cluster("west", 1, 8);
  ASSERT_TRUE(cluster_action("cordon", "west").ok);
  ASSERT_TRUE(cluster_action("uncordon", "west").ok);
  stop();
  start();
  const auto clusters = ask<protocol::ListReply>(protocol::ListRequest{"clusters"}).clusters;
  ASSERT_EQ(clusters.size(), 1u) << "known before its agent says Hello";
  EXPECT_EQ(clusters[0].name, "east");
  EXPECT_TRUE(clusters[0].cordoned);
  EXPECT_FALSE(clusters[0].ready);
  register_cluster("east", 1, 8);
  EXPECT_TRUE(cluster("east").cordoned);
  sent();
  ASSERT_TRUE(submit(job_yaml("train", 1, 8)).ok);
  EXPECT_TRUE(frames_of<protocol::Prepare>(sent()).empty());
}

}  // namespace
}  // namespace gantry::actors
