// A restarted hub (a new one on the same state directory) and the parts its
// clusters kept: taken back, committed again, or stopped, by what the store
// recorded before the old hub's frames left.
#include "hub_actors_fixture.hpp"

namespace gantry::actors {
namespace {

class HubRestartTest : public HubActorsTest {
 protected:
  // "long" (one 8-GPU replica) is prepared on west; `then` takes it further
  // before the hub goes away and a new one opens the same state directory.
  template <class Then>
  protocol::Prepare prepare_long_then_restart(Then then) {
    register_cluster("west", 1, 8);
    EXPECT_TRUE(submit(job_yaml("long", 1, 8)).ok);
    const protocol::Prepare prepare = only_prepare().second;
    then(prepare);
    stop();
    start();
    sent();
    return prepare;
  }

  // "long" runs on west (committed and started) when the hub goes away.
  protocol::Prepare run_long_then_restart() {
    return prepare_long_then_restart([this](const protocol::Prepare& prepare) {
      admit("agent/west", prepare);
      report("agent/west", prepare, "Running");
    });
  }

  // West's agent comes back holding `prepare`'s part on its only node
  // (started, or only prepared).
  void west_returns_holding(const protocol::Prepare& prepare, bool committed) {
    from_agent("agent/west",
               protocol::Hello{
                   "west",
                   {},
                   "test",
                   {{prepare.dispatch_id, "long", {{"worker", "west-node-0"}}, 0, 1, committed}},
                   {}});
    protocol::UsageReport report = usage_report("west", 1, 8);
    report.nodes[0].allocated = {{"nvidia.com/gpu", 8000}};
    report.accounted_dispatches = {prepare.dispatch_id};
    from_agent("agent/west", report);
  }

  // Like run_long_then_restart(), but the agent's Hello (made from the id
  // "long" ran under) reaches the scheduler before "long" is back from the store.
  template <class MakeHello>
  protocol::Prepare restart_with_hello_first(MakeHello make_hello) {
    register_cluster("west", 1, 8);
    const protocol::Prepare prepare = run(job_yaml("long", 1, 8)).second;
    stop();
    start(false);
    router->on_message(
        InboundMessage{Channel::kAgents, "agent/west", 1, make_hello(prepare.dispatch_id), kTester});
    EXPECT_TRUE(sched.prioritize(actors.registry));
    sched.run_once();
    EXPECT_TRUE(sched.prioritize(actors.scheduler));
    while (sched.prioritize(actors.scheduler)) sched.run_once();
    sched.run();  // now the queue actor re-queues "long"
    sent();
    return prepare;
  }

  // The grace period for agents to come back passes; west keeps beating.
  void grace_passes() {
    for (int i = 0; i < kLiveness; ++i) tick_beating({"west"});
  }
};

TEST_F(HubRestartTest, JobStillRunningOnItsClusterIsTakenBackNotStartedAgain) {
  const protocol::Prepare prepare = run_long_then_restart();
  west_returns_holding(prepare, true);
  grace_passes();

  const auto frames = sent();
  EXPECT_TRUE(frames_of<protocol::Prepare>(frames).empty()) << "no second run";
  EXPECT_TRUE(frames_of<protocol::Commit>(frames).empty()) << "it had started";
  EXPECT_EQ(job("long").phase, "Running");
  EXPECT_EQ(job("long").clusters, std::vector<std::string>{"west"});
  EXPECT_TRUE(contains(job_events("long"), "still running on west from before the hub restarted"));
  // Its end, under the earlier hub's dispatch id, ends the job.
  report("agent/west", prepare, "Completed");
  EXPECT_EQ(job("long").phase, "Completed");
  EXPECT_TRUE(frames_of<protocol::Cancel>(sent()).empty());
}

TEST_F(HubRestartTest, RestartBetweenPrepareAndCommitAbortsThePreparedPartAndPlacesTheJobAgain) {
  const protocol::Prepare prepare = prepare_long_then_restart([](const protocol::Prepare&) {});
  west_returns_holding(prepare, false);  // it admitted; the Admit never reached a hub
  const auto [peer, abort] = only<protocol::Abort>();
  EXPECT_EQ(peer, "agent/west");
  EXPECT_EQ(abort.dispatch_id, prepare.dispatch_id);
  EXPECT_EQ(abort.reason, "the hub restarted before committing it");
  from_agent("agent/west", usage_report("west", 1, 8));  // released
  grace_passes();

  const auto [again_peer, again] = only_prepare();
  EXPECT_EQ(again_peer, "agent/west");
  EXPECT_GT(again.dispatch_id, prepare.dispatch_id)
      << "ids of a later hub are above an earlier hub's";
  admit(again_peer, again);
  EXPECT_EQ(only<protocol::Commit>().second.dispatch_id, again.dispatch_id);
  EXPECT_EQ(job("long").phase, "Running");
}

TEST_F(HubRestartTest, RestartAfterTheCommitRecordTakesThePartBackAndCommitsItAgain) {
  // Admitted and committed, but the Commit never reached the agent.
  const protocol::Prepare prepare = prepare_long_then_restart(
      [this](const protocol::Prepare& prepared) { admit("agent/west", prepared); });
  west_returns_holding(prepare, false);

  const auto [peer, commit] = only<protocol::Commit>();
  EXPECT_EQ(peer, "agent/west");
  EXPECT_EQ(commit.dispatch_id, prepare.dispatch_id);
  EXPECT_EQ(commit.master_addr, "10.0.0.7") << "the rendezvous the earlier hub recorded";
  EXPECT_EQ(commit.master_port, 29500);
  EXPECT_EQ(job("long").phase, "Running");
  EXPECT_TRUE(contains(job_events("long"),
                       "still running on west from before the hub restarted: taken back"));
  report("agent/west", prepare, "Running");
  grace_passes();
  const auto frames = sent();
  EXPECT_TRUE(frames_of<protocol::Prepare>(frames).empty()) << "never placed twice";
  EXPECT_TRUE(frames_of<protocol::Commit>(frames).empty()) << "confirmed";
}

TEST_F(HubRestartTest, JobThatEndedWhileTheHubWasAwayIsNotRunAgain) {
  const protocol::Prepare prepare = run_long_then_restart();
  from_agent("agent/west", protocol::Hello{"west", {}, "test", {}, {}});
  from_agent("agent/west", usage_report("west", 1, 8));
  report("agent/west", prepare, "Failed", "exit 3");
  grace_passes();

  EXPECT_TRUE(frames_of<protocol::Prepare>(sent()).empty());
  EXPECT_EQ(job("long").phase, "Failed");
  EXPECT_TRUE(contains(job_events("long"), "Failed on west while the hub was away"));
  stop();  // and it stays ended across the next restart
  start();
  grace_passes();
  EXPECT_TRUE(frames_of<protocol::Prepare>(sent()).empty());
  EXPECT_EQ(job("long").phase, "Failed");
  EXPECT_TRUE(contains(job_events("long"), "Failed on west while the hub was away"));
}

TEST_F(HubRestartTest, EndTheHubMissedIsTakenFromTheAgentsHello) {
  const protocol::Prepare prepare = run_long_then_restart();
  // The Completed the agent sent as the hub went away never arrived; its
  // Hello repeats it.
  from_agent(
      "agent/west",
      protocol::Hello{"west",
                      {},
                      "test",
                      {},
                      {protocol::StatusUpdate{prepare.dispatch_id, "long", "Completed", {}, ""}}});
  from_agent("agent/west", usage_report("west", 1, 8));
  grace_passes();
  EXPECT_TRUE(frames_of<protocol::Prepare>(sent()).empty());
  EXPECT_EQ(job("long").phase, "Completed");
}

TEST_F(HubRestartTest, EndReportedBeforeItsJobIsRestoredStillEndsIt) {
  restart_with_hello_first([](hub::DispatchId id) {
    return protocol::Hello{
        "west", {}, "test", {}, {protocol::StatusUpdate{id, "long", "Completed", {}, ""}}};
  });
  from_agent("agent/west", usage_report("west", 1, 8));
  grace_passes();
  EXPECT_TRUE(frames_of<protocol::Prepare>(sent()).empty());
  EXPECT_EQ(job("long").phase, "Completed");
}

TEST_F(HubRestartTest, RunReportedBeforeItsJobIsRestoredIsStillTakenBack) {
  const protocol::Prepare prepare = restart_with_hello_first([](hub::DispatchId id) {
    return protocol::Hello{
        "west", {}, "test", {{id, "long", {{"worker", "west-node-0"}}, 0, 1, true}}, {}};
  });
  protocol::UsageReport report = usage_report("west", 1, 8);
  report.nodes[0].allocated = {{"nvidia.com/gpu", 8000}};
  report.accounted_dispatches = {prepare.dispatch_id};
  from_agent("agent/west", report);
  grace_passes();
  EXPECT_TRUE(frames_of<protocol::Prepare>(sent()).empty());
  EXPECT_EQ(job("long").phase, "Running");
}

// The agent's Hello lists the run and its status follows at once, before the
// scheduler has read either: the status must not overtake the Hello (agents'
// answers travel at high priority), or the run looks stale and is cancelled
// while its Hello then has it taken back.
TEST_F(HubRestartTest, AStatusSentRightAfterTheHelloDoesNotOvertakeIt) {
  const protocol::Prepare prepare = run_long_then_restart();
  to_router(
      "agent/west",
      protocol::Hello{"west",
                      {},
                      "test",
                      {{prepare.dispatch_id, "long", {{"worker", "west-node-0"}}, 0, 1, true}},
                      {}});
  to_router("agent/west",
            protocol::StatusUpdate{prepare.dispatch_id, prepare.job.name, "Running", {}, ""});
  protocol::UsageReport report = usage_report("west", 1, 8);
  report.nodes[0].allocated = {{"nvidia.com/gpu", 8000}};
  report.accounted_dispatches = {prepare.dispatch_id};
  to_router("agent/west", report);
  sched.run();
  grace_passes();

  const auto frames = sent();
  EXPECT_TRUE(frames_of<protocol::Cancel>(frames).empty()) << "the run was cancelled";
  EXPECT_TRUE(frames_of<protocol::Prepare>(frames).empty()) << "no second run";
  EXPECT_EQ(job("long").phase, "Running");
  EXPECT_TRUE(contains(job_events("long"), "still running on west from before the hub restarted"));
}

TEST_F(HubRestartTest, RestoredJobNobodyRunsIsPlacedAgainAfterTheGracePeriodWithANewId) {
  const protocol::Prepare old = run_long_then_restart();
  from_agent("agent/west", protocol::Hello{"west", {}, "test", {}, {}});  // the agent lost it
  from_agent("agent/west", usage_report("west", 1, 8));
  EXPECT_TRUE(frames_of<protocol::Prepare>(sent()).empty()) << "not during the grace period";

  grace_passes();
  const protocol::Prepare again = only_prepare().second;
  EXPECT_EQ(again.job.name, "long");
  EXPECT_GT(again.dispatch_id, old.dispatch_id) << "ids of a later hub are above an earlier hub's";
}

TEST_F(HubRestartTest, RunOfAJobCancelledMeanwhileIsStopped) {
  const protocol::Prepare prepare = run_long_then_restart();
  ASSERT_TRUE(ask<protocol::AdminResult>(protocol::CancelRequest{"job", "long"}).ok);
  west_returns_holding(prepare, true);
  grace_passes();
  const auto cancels = frames_of<protocol::Cancel>(sent());
  ASSERT_EQ(cancels.size(), 1u);
  EXPECT_EQ(cancels[0].second.dispatch_id, prepare.dispatch_id);
}


// Issue 27: a Hello's `ended` list is believed only for the run the hub
// recorded on that agent's cluster. Before, another cluster's agent (or one
// guessing dispatch ids) could end a job that ran elsewhere.
TEST_F(HubRestartTest, AnotherClustersHelloCannotEndARunItDidNotHold) {
  const protocol::Prepare prepare = run_long_then_restart();
  from_agent("agent/east",
             protocol::Hello{"east",
                             {},
                             "test",
                             {},
                             {protocol::StatusUpdate{prepare.dispatch_id, "long", "Completed", {},
                                                     "done"},
                              protocol::StatusUpdate{prepare.dispatch_id + 1, "long", "Completed",
                                                     {}, "guessed"}}});
  EXPECT_NE(job("long").phase, "Completed");
  west_returns_holding(prepare, true);
  grace_passes();
  EXPECT_EQ(job("long").phase, "Running");
  EXPECT_EQ(job("long").clusters, std::vector<std::string>{"west"});
}

TEST_F(HubRestartTest, AStatusFromAnotherClustersAgentLeavesTheRunAndBothSessionsAlone) {
  register_cluster("east", 1, 8);
  register_cluster("west", 1, 8);
  const auto [peer, prepare] = run(job_yaml("long", 1, 8));
  const std::string other = peer == "agent/west" ? "agent/east" : "agent/west";
  from_agent(other, protocol::StatusUpdate{prepare.dispatch_id, "long", "Completed", {}, "lie"});
  EXPECT_EQ(job("long").phase, "Running");
  EXPECT_EQ(job("long").clusters, std::vector<std::string>{cluster_of(peer)});
  EXPECT_TRUE(cluster_ready("east"));
  EXPECT_TRUE(cluster_ready("west"));
  report(peer, prepare, "Completed");
  EXPECT_EQ(job("long").phase, "Completed");
}

}  // namespace
}  // namespace gantry::actors
