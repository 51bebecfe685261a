// The reconciler without CAF: agents' reports in any order, and after a hub
// restart the runs the clusters kept, each step's outbox checked directly.
#include "hub/reconciler.hpp"

#include <gtest/gtest.h>

#include "tests/core/reconciler_harness.hpp"

namespace gantry::hub {
namespace {

using testing::has_event;
using testing::kEarlierHubsId;  // what "long" ran under before the restart
using testing::kThisHubsFirstId;

class ReconcilerTest : public testing::ReconcilerHarness {
 protected:
  JobId submit(const std::string& name) {
    JobRequest request;
    request.name = name;
    request.gang = make_uniform_gang(1, testing::gpus(8));
    request.gang.tasks[0].name = "worker";
    return CoreHarness::submit(std::move(request));
  }
  // The store brings `name` back after a restart.
  Outbox restore(const std::string& name) {
    Outbox out;
    reconciler.on_restored(submit(name), nullptr, now, out);
    return out;
  }
  // The job comes back with the record of the run it had on west under the
  // earlier hub (committed: the hub records every commit before it leaves).
  Outbox restore_ran_on_west(const std::string& name) {
    Outbox out;
    const RestoredDispatch record{kEarlierHubsId, true, {"west"}, "10.0.0.7", 29500};
    reconciler.on_restored(submit(name), &record, now, out);
    return out;
  }
  Outbox hello(std::vector<protocol::RunningDispatch> running,
               std::vector<protocol::StatusUpdate> ended = {}) {
    Outbox out;
    reconciler.on_hello(protocol::Hello{"west", {}, "test", std::move(running), std::move(ended)},
                        now, out);
    return out;
  }
  // West's two 8-GPU nodes; `busy_with` is the dispatch its agent counts on west-0.
  Outbox usage(std::optional<DispatchId> busy_with = std::nullopt) {
    protocol::UsageReport report{"west", {}, {}, {}};
    for (const char* node : {"west-0", "west-1"})
      report.nodes.push_back(protocol::NodeUsage{node, {}, {{"nvidia.com/gpu", 8000}}, {}, "", {}});
    if (busy_with) {
      report.nodes[0].allocated = {{"nvidia.com/gpu", 8000}};
      report.accounted_dispatches = {*busy_with};
    }
    Outbox out;
    reconciler.on_usage(report, now, out);
    return out;
  }
  Outbox status(DispatchId id, const std::string& job, const std::string& phase,
                const std::string& message = "") {
    Outbox out;
    reconciler.on_status("west", protocol::StatusUpdate{id, job, phase, {}, message}, now, out);
    return out;
  }
  Outbox end_recovery() {
    Outbox out;
    reconciler.end_recovery(now, out);
    return out;
  }
  // West's agent lists "long" as still running under the earlier hub's id.
  static protocol::RunningDispatch long_running() {
    return protocol::RunningDispatch{kEarlierHubsId, "long", {{"worker", "west-0"}}, 0, 1, true};
  }
  static protocol::StatusUpdate long_ended(const std::string& phase) {
    return protocol::StatusUpdate{kEarlierHubsId, "long", phase, {}, ""};
  }
  // What an agent cut off from the hub past its fence timeout reports.
  static protocol::StatusUpdate fenced(DispatchId id, const std::string& job) {
    protocol::StatusUpdate update{id, job, "Failed", {}, "fenced: no confirmed contact"};
    update.event = protocol::policy_event::kPodEvicted;
    return update;
  }
  // A ready west and one job dispatched to it by this hub.
  DispatchId dispatched(const std::string& name) {
    const JobId id = submit(name);
    const std::vector<Decision>& decisions = core.schedule(now);
    EXPECT_EQ(decisions.size(), 1u);
    EXPECT_EQ(decisions[0].job, id);
    return decisions[0].dispatch;
  }
  void west_ready() {
    hello({});
    usage();
  }
  Outbox admit(DispatchId id, const std::string& name, const std::string& cluster = "west") {
    Outbox out;
    reconciler.on_admit(cluster, protocol::Admit{id, name, 0, "", 0}, now, out);
    return out;
  }
  // A ready west running `name` for this hub.
  DispatchId running(const std::string& name) {
    west_ready();
    const DispatchId id = dispatched(name);
    admit(id, name);
    status(id, name, "Running");
    return id;
  }
  // `out` ended `name` with `phase` and `message`, and asks the store to record it.
  void expect_ended(const Outbox& out, const std::string& name, JobPhase phase,
                    const std::string& message) {
    EXPECT_EQ(job(name).phase, phase);
    EXPECT_EQ(job(name).history().message, message);
    ASSERT_EQ(out.ends.size(), 1u);
    EXPECT_EQ(out.ends[0].job, *core.find_job(name));
    EXPECT_EQ(out.ends[0].phase, phase);
  }
};

// ---- after a hub restart

class RecoveryReconcilerTest : public ReconcilerTest {
 protected:
  RecoveryReconcilerTest() { reconciler.begin_recovery(); }
};

TEST_F(RecoveryReconcilerTest, JobStillRunningOnItsClusterIsTakenBackNotStartedAgain) {
  const Outbox restored = restore("long");
  EXPECT_TRUE(has_event(restored, *core.find_job("long"), "queued again after a hub restart"));
  EXPECT_TRUE(hello({long_running()}).cancels.empty());
  const Outbox reported = usage(kEarlierHubsId);
  EXPECT_TRUE(reported.cancels.empty());
  EXPECT_TRUE(has_event(reported, *core.find_job("long"),
                        "still running on west from before the hub restarted: taken back"));
  EXPECT_EQ(job("long").phase, JobPhase::kRunning);
  EXPECT_EQ(job("long").dispatch, kEarlierHubsId);
  EXPECT_TRUE(reconciler.recovering());

  EXPECT_TRUE(end_recovery().cancels.empty());
  EXPECT_FALSE(reconciler.recovering());
  EXPECT_TRUE(core.schedule(now).empty()) << "no second run";

  // Its end, under the earlier hub's dispatch id, ends the job.
  const Outbox ended = status(kEarlierHubsId, "long", "Completed");
  EXPECT_EQ(job("long").phase, JobPhase::kCompleted);
  ASSERT_EQ(ended.ends.size(), 1u);
  EXPECT_EQ(ended.ends[0].phase, JobPhase::kCompleted);
  EXPECT_TRUE(ended.cancels.empty());
}

TEST_F(RecoveryReconcilerTest, JobThatEndedWhileTheHubWasAwayIsNotRunAgain) {
  const JobId id = restore_ran_on_west("long").events[0].job;
  hello({});
  usage();
  const Outbox ended = status(kEarlierHubsId, "long", "Failed", "exit 3");
  EXPECT_EQ(job("long").phase, JobPhase::kFailed);
  EXPECT_EQ(job("long").history().message, "exit 3");
  EXPECT_TRUE(has_event(ended, id, "Failed on west while the hub was away"));
  ASSERT_EQ(ended.ends.size(), 1u);  // stays ended across the next restart
  EXPECT_EQ(ended.ends[0].job, id);
  EXPECT_EQ(ended.ends[0].phase, JobPhase::kFailed);
  end_recovery();
  EXPECT_TRUE(core.schedule(now).empty());
}

// Issue 28: an agent that lost the hub longer than its fence timeout stopped
// the run itself. That is an eviction: the job runs again, it did not fail.
TEST_F(RecoveryReconcilerTest, ARunFencedWhileTheHubWasAwayIsPlacedAgainNotFailed) {
  const JobId id = restore_ran_on_west("long").events[0].job;
  const Outbox said = hello({}, {fenced(kEarlierHubsId, "long")});
  EXPECT_TRUE(said.ends.empty());
  EXPECT_EQ(job("long").phase, JobPhase::kPending);
  EXPECT_TRUE(has_event(said, id, "requeued: its run on west was fenced while the hub was away"));
  usage();
  end_recovery();
  const std::vector<Decision>& placed = core.schedule(now);
  ASSERT_EQ(placed.size(), 1u) << "placed again, once";
  EXPECT_EQ(placed[0].job, id);
  EXPECT_GT(placed[0].dispatch, kThisHubsFirstId);
}

TEST_F(RecoveryReconcilerTest, ARunFencedWhileTheHubWasAwayFollowsAPodEvictedPolicy) {
  JobRequest request;
  request.name = "long";
  request.gang = make_uniform_gang(1, testing::gpus(8));
  request.gang.tasks[0].name = "worker";
  auto spec = std::make_shared<protocol::JobSpec>();
  spec->policies.push_back(protocol::LifecyclePolicy{{"PodEvicted"}, "AbortJob", 0, 0});
  request.policies = std::make_shared<const JobPolicies>(*spec);
  request.spec = spec;
  const RestoredDispatch record{kEarlierHubsId, true, {"west"}, "10.0.0.7", 29500};
  Outbox restored;
  reconciler.on_restored(CoreHarness::submit(std::move(request)), &record, now, restored);
  const Outbox said = hello({}, {fenced(kEarlierHubsId, "long")});
  EXPECT_EQ(job("long").phase, JobPhase::kAborted);
  ASSERT_EQ(said.ends.size(), 1u);
  EXPECT_EQ(said.ends[0].phase, JobPhase::kAborted);
}

TEST_F(RecoveryReconcilerTest, EndTheHubMissedIsTakenFromTheAgentsHello) {
  restore_ran_on_west("long");
  const Outbox said = hello({}, {long_ended("Completed")});
  EXPECT_EQ(job("long").phase, JobPhase::kCompleted);
  EXPECT_EQ(said.ends.size(), 1u);
  usage();
  end_recovery();
  EXPECT_TRUE(core.schedule(now).empty());
}

// Issue 27: only the run the hub recorded on that cluster. An agent of another
// cluster, or one guessing ids, cannot end the job.
TEST_F(RecoveryReconcilerTest, AnEndFromAClusterTheRunWasNotRecordedOnIsNotBelieved) {
  restore_ran_on_west("long");
  Outbox out;
  reconciler.on_hello(protocol::Hello{"east", {}, "test", {}, {long_ended("Completed")}}, now, out);
  EXPECT_EQ(job("long").phase, JobPhase::kPending);
  EXPECT_TRUE(out.ends.empty());
  const Outbox guessed =
      hello({}, {protocol::StatusUpdate{kEarlierHubsId + 7, "long", "Completed", {}, ""}});
  EXPECT_EQ(job("long").phase, JobPhase::kPending);
  EXPECT_TRUE(guessed.ends.empty());
}

TEST_F(RecoveryReconcilerTest, EndReportedBeforeItsJobIsRestoredStillEndsIt) {
  const Outbox said = hello({}, {long_ended("Completed")});
  EXPECT_TRUE(said.ends.empty() && said.cancels.empty()) << "kept until the job is back";
  usage();
  const Outbox restored = restore_ran_on_west("long");
  EXPECT_EQ(job("long").phase, JobPhase::kCompleted);
  ASSERT_EQ(restored.ends.size(), 1u);
  EXPECT_EQ(restored.ends[0].phase, JobPhase::kCompleted);
  end_recovery();
  EXPECT_TRUE(core.schedule(now).empty());
}

TEST_F(RecoveryReconcilerTest, RunReportedBeforeItsJobIsRestoredIsStillTakenBack) {
  hello({long_running()});
  EXPECT_TRUE(usage(kEarlierHubsId).cancels.empty()) << "its job may still come back";
  // Progress of the parked run is no reason to stop it.
  EXPECT_TRUE(status(kEarlierHubsId, "long", "Running").cancels.empty());
  const Outbox restored = restore("long");
  EXPECT_EQ(job("long").phase, JobPhase::kRunning);
  EXPECT_TRUE(restored.cancels.empty());
  EXPECT_TRUE(end_recovery().cancels.empty());
  EXPECT_TRUE(core.schedule(now).empty());
}

TEST_F(RecoveryReconcilerTest, RestoredJobNobodyRunsIsPlacedAgainAfterTheGracePeriodWithANewId) {
  restore("long");
  hello({});  // the agent lost it
  usage();
  EXPECT_TRUE(reconciler.recovering()) << "the caller runs no pass during the grace period";
  const Outbox over = end_recovery();
  EXPECT_TRUE(over.pass_wanted);
  const std::vector<Decision>& decisions = core.schedule(now);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(core.job(decisions[0].job).name, "long");
  EXPECT_GT(decisions[0].dispatch, kEarlierHubsId) << "a later hub's ids are above an earlier's";
  EXPECT_FALSE(core.from_earlier_hub(decisions[0].dispatch));
}

TEST_F(RecoveryReconcilerTest, RunOfAJobCancelledMeanwhileIsStopped) {
  restore("long");
  Outbox cancelled;
  EXPECT_EQ(reconciler.cancel("long", now, cancelled), std::nullopt);
  EXPECT_TRUE(cancelled.cancels.empty()) << "no run known yet";
  hello({long_running()});
  const Outbox reported = usage(kEarlierHubsId);
  const Outbox over = end_recovery();
  std::vector<AgentCancel> stops = reported.cancels;
  stops.insert(stops.end(), over.cancels.begin(), over.cancels.end());
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_EQ(stops[0].cluster, "west");
  EXPECT_EQ(stops[0].dispatch, kEarlierHubsId);
  EXPECT_EQ(stops[0].job, "long");
  EXPECT_EQ(job("long").phase, JobPhase::kAborted);
}

TEST_F(RecoveryReconcilerTest, RunOfAJobTheStoreDidNotHaveIsStoppedWhenTheGraceEnds) {
  hello({long_running()});
  EXPECT_TRUE(usage(kEarlierHubsId).cancels.empty());
  const Outbox over = end_recovery();
  ASSERT_EQ(over.cancels.size(), 1u);
  EXPECT_EQ(over.cancels[0].dispatch, kEarlierHubsId);
}

// ---- agents' reports

TEST_F(ReconcilerTest, HelloWithoutOneOfTwoRunningJobsRequeuesThatOne) {
  west_ready();
  const DispatchId kept = dispatched("kept");
  const DispatchId lost = dispatched("lost");
  admit(kept, "kept");
  admit(lost, "lost");

  // The agent restarted (same hub): it still runs "kept" only.
  const Outbox said = hello({{kept, "kept", {{"worker", "west-0"}}, 0, 1, true}});
  EXPECT_EQ(job("kept").phase, JobPhase::kRunning);
  EXPECT_EQ(job("lost").phase, JobPhase::kPending);
  EXPECT_TRUE(
      has_event(said, *core.find_job("lost"), "requeued: the agent on west no longer runs it"));
  EXPECT_TRUE(said.cancels.empty()) << "kept is not stopped";
  EXPECT_TRUE(said.pass_wanted);
}

TEST_F(ReconcilerTest, HelloListingDispatchesTheHubDoesNotKnowGetsThemCancelledInOrder) {
  const Outbox said = hello({{kThisHubsFirstId + 17, "gone", {}, 0, 1, true},
                             {kThisHubsFirstId + 18, "also", {}, 0, 1, true}});
  ASSERT_EQ(said.cancels.size(), 2u);
  EXPECT_EQ(said.cancels[0].dispatch, kThisHubsFirstId + 17);
  EXPECT_EQ(said.cancels[1].dispatch, kThisHubsFirstId + 18);
  EXPECT_EQ(said.cancels[0].cluster, "west");
  ASSERT_TRUE(core.find_cluster("west"));
}

TEST_F(ReconcilerTest, FirstUsageReportMakesTheClusterReadyAndWantsAPass) {
  hello({});
  EXPECT_FALSE(core.cluster(*core.find_cluster("west")).ready());
  EXPECT_TRUE(usage().pass_wanted);
  EXPECT_TRUE(core.cluster(*core.find_cluster("west")).ready());
}

TEST_F(ReconcilerTest, UsageReportOfAnUnknownClusterIsIgnored) {
  const Outbox out = usage();
  EXPECT_FALSE(out.pass_wanted);
  ASSERT_EQ(out.log.size(), 1u);
  EXPECT_EQ(out.log[0].level, LogLine::Level::kWarn);
  EXPECT_FALSE(core.find_cluster("west"));
}

TEST_F(ReconcilerTest, UsageReportKeepsItsScoresAndEveryNodesGpusAndTheNextReplacesThem) {
  hello({});
  protocol::UsageReport report{"west", {}, {}, {}};
  report.nodes.resize(2);
  report.nodes[0].name = "west-0";
  report.nodes[0].gpus = {protocol::GpuUsage{0, "A100", 80, 10, 90, 1},
                          protocol::GpuUsage{1, "A100", 80, 0, 0, 0}};
  report.nodes[1].name = "west-1";
  report.nodes[1].gpus = {protocol::GpuUsage{0, "H100", 96, 5, 30, 2}};
  report.scores = protocol::PlacementScores{1, 2, 3, 4, 5, 6, 7'000};
  Outbox out;
  reconciler.on_usage(report, now, out);
  const ClusterState& west = core.cluster(*core.find_cluster("west"));
  const ObservedUsage& observed = west.observed_usage();
  EXPECT_EQ(observed.scores.gpu_cluster_available, 6);
  EXPECT_EQ(observed.scores.valid_until_ms, 7'000);
  ASSERT_EQ(observed.gpus.size(), 3u);
  EXPECT_EQ(observed.gpus[0].utilization_percent, 90);
  EXPECT_EQ(observed.gpus[2].product, "H100");

  report.nodes.pop_back();
  report.nodes[0].gpus.pop_back();
  report.scores = {};
  reconciler.on_usage(report, now, out);
  ASSERT_EQ(west.observed_usage().gpus.size(), 1u) << "replaced, not added to";
  EXPECT_EQ(west.observed_usage().scores.valid_until_ms, 0);
}

TEST_F(ReconcilerTest, AdmitOfEveryPartCommitsTheDispatchOnceAndADuplicateChangesNothing) {
  west_ready();
  const DispatchId id = dispatched("job");
  EXPECT_EQ(job("job").phase, JobPhase::kDispatched);
  const Outbox admitted = admit(id, "job");
  EXPECT_EQ(admitted.commits, std::vector<DispatchId>{id}) << "record, then send Commit";
  EXPECT_EQ(job("job").phase, JobPhase::kRunning);
  EXPECT_TRUE(has_event(admitted, *core.find_job("job"), "admitted by west; committed"));
  const Outbox again = admit(id, "job");
  EXPECT_TRUE(again.commits.empty() && again.events.empty() && again.aborts.empty());
}

TEST_F(ReconcilerTest, StatusOfAPartThatWasNeverCommittedChangesNothing) {
  west_ready();
  const DispatchId id = dispatched("job");
  const Outbox out = status(id, "job", "Completed");
  EXPECT_EQ(job("job").phase, JobPhase::kDispatched) << "an agent starts nothing before Commit";
  EXPECT_TRUE(out.ends.empty() && out.cancels.empty());
}

TEST_F(ReconcilerTest, FailedStatusFailsTheJobWithTheAgentsMessage) {
  const Outbox out = status(running("job"), "job", "Failed", "exit 1");
  expect_ended(out, "job", JobPhase::kFailed, "exit 1");
  EXPECT_TRUE(has_event(out, *core.find_job("job"), "Failed on west: exit 1"));
  EXPECT_TRUE(out.pass_wanted);
}

TEST_F(ReconcilerTest, ARunItsAgentFencedIsRequeuedNotFailed) {
  const DispatchId id = running("job");
  Outbox out;
  reconciler.on_status("west", fenced(id, "job"), now, out);
  EXPECT_EQ(job("job").phase, JobPhase::kPending);
  EXPECT_EQ(job("job").requeues, 1);
  EXPECT_TRUE(out.ends.empty());
  EXPECT_TRUE(out.cancels.empty()) << "nothing of it runs on west any more";
  EXPECT_TRUE(has_event(out, *core.find_job("job"), "requeued: its run on west was fenced"));
  EXPECT_EQ(core.reason_text(job("job")),
            "its run on cluster west was stopped by the agent (fenced: cut off from the hub); "
            "requeued (1)");
  EXPECT_TRUE(out.pass_wanted);
  EXPECT_EQ(core.schedule(now).size(), 1u) << "placed again";
}

TEST_F(ReconcilerTest, RunAbortedByTheAgentIsAFailure) {
  const Outbox out = status(running("job"), "job", "Aborted", "node lost");
  expect_ended(out, "job", JobPhase::kFailed, "aborted by the agent: node lost");
}

TEST_F(ReconcilerTest, AdmitOfADispatchTheHubDoesNotHaveThereIsAborted) {
  west_ready();
  const Outbox unknown = admit(kThisHubsFirstId + 99, "ghost");
  ASSERT_EQ(unknown.aborts.size(), 1u);
  EXPECT_EQ(unknown.aborts[0].cluster, "west");
  EXPECT_EQ(unknown.aborts[0].dispatch, kThisHubsFirstId + 99);
  EXPECT_EQ(unknown.aborts[0].job, "ghost");
  EXPECT_TRUE(unknown.cancels.empty() && unknown.commits.empty());

  const DispatchId id = dispatched("job");
  Outbox elsewhere;  // the same dispatch admitted by another cluster
  reconciler.on_hello(protocol::Hello{"east", {}, "test", {}, {}}, now, elsewhere);
  reconciler.on_admit("east", protocol::Admit{id, "job", 0, "", 0}, now, elsewhere);
  ASSERT_EQ(elsewhere.aborts.size(), 1u);
  EXPECT_EQ(elsewhere.aborts[0].cluster, "east");
  EXPECT_TRUE(elsewhere.commits.empty());
  EXPECT_EQ(job("job").phase, JobPhase::kDispatched);
}

TEST_F(ReconcilerTest, RejectRequeuesTheJobAndARejectOfAMovedDispatchIsIgnored) {
  west_ready();
  const DispatchId first = dispatched("job");
  Outbox rejected;
  reconciler.on_reject("west", protocol::Reject{first, "job", "no room", 0}, now, rejected);
  EXPECT_EQ(job("job").phase, JobPhase::kPending);
  EXPECT_TRUE(has_event(rejected, *core.find_job("job"), "rejected by west: no room"));
  EXPECT_TRUE(has_event(rejected, *core.find_job("job"), "west is not tried again for it for 1 s"));
  EXPECT_TRUE(rejected.pass_wanted);
  EXPECT_EQ(core.next_backoff_end(now), now + 1'000) << "a pass when the backoff runs out";
  EXPECT_TRUE(rejected.aborts.empty()) << "one part: nothing else to release";

  EXPECT_TRUE(core.schedule(now + 999).empty()) << "backed off";
  const std::vector<Decision>& again = core.schedule(now + 1'000);
  ASSERT_EQ(again.size(), 1u);
  Outbox late;  // the first dispatch's reject, repeated
  reconciler.on_reject("west", protocol::Reject{first, "job", "no room", 0}, now, late);
  EXPECT_EQ(job("job").phase, JobPhase::kDispatched);
  EXPECT_TRUE(late.events.empty() && late.cancels.empty() && !late.pass_wanted);
}

TEST_F(ReconcilerTest, ProgressOfAnUnknownRunStopsItButAnEndNeedsNothing) {
  west_ready();
  const Outbox running = status(kThisHubsFirstId + 5, "gone", "Running");
  ASSERT_EQ(running.cancels.size(), 1u);
  EXPECT_EQ(running.cancels[0].dispatch, kThisHubsFirstId + 5);
  EXPECT_TRUE(status(kThisHubsFirstId + 5, "gone", "Completed").cancels.empty());
  EXPECT_TRUE(status(kThisHubsFirstId + 5, "gone", "Aborted").cancels.empty());
}

TEST_F(ReconcilerTest, LostClusterRequeuesWhatItRan) {
  west_ready();
  dispatched("job");
  Outbox out;
  reconciler.on_cluster_lost("west", now, out);
  EXPECT_EQ(job("job").phase, JobPhase::kPending);
  EXPECT_TRUE(has_event(out, *core.find_job("job"), "requeued: cluster west was lost"));
  EXPECT_TRUE(out.pass_wanted);
}

// ---- users

TEST_F(ReconcilerTest, CancelOfARunningJobStopsItsRunAndRecordsTheEnd) {
  const DispatchId id = running("job");
  Outbox out;
  EXPECT_EQ(reconciler.cancel("job", now, out), std::nullopt);
  EXPECT_EQ(job("job").phase, JobPhase::kAborted);
  ASSERT_EQ(out.cancels.size(), 1u);
  EXPECT_EQ(out.cancels[0].cluster, "west");
  EXPECT_EQ(out.cancels[0].dispatch, id);
  ASSERT_EQ(out.ends.size(), 1u);
  EXPECT_EQ(out.ends[0].phase, JobPhase::kAborted);
  EXPECT_TRUE(has_event(out, *core.find_job("job"), "cancelled"));
}

TEST_F(ReconcilerTest, CancelOfAnUnknownOrEndedJobIsRefusedChangingNothing) {
  Outbox out;
  EXPECT_EQ(reconciler.cancel("ghost", now, out), "job \"ghost\" not found");
  west_ready();
  const DispatchId id = dispatched("done");
  admit(id, "done");
  status(id, "done", "Completed");
  EXPECT_EQ(reconciler.cancel("done", now, out), "job \"done\" has already ended (Completed)");
  EXPECT_TRUE(out.cancels.empty() && out.ends.empty() && out.events.empty() && !out.pass_wanted);
  EXPECT_EQ(job("done").phase, JobPhase::kCompleted);
}

// A restored job last committed on west may still run there: recovery
// waits for west to report before it is placed again.
TEST_F(RecoveryReconcilerTest, AClusterThatHeldACommittedPartIsAwaitedUntilItReports) {
  restore_ran_on_west("long");
  EXPECT_EQ(reconciler.clusters_awaited(), std::vector<std::string>{"west"});
  hello({long_running()});
  EXPECT_EQ(reconciler.clusters_awaited(), std::vector<std::string>{"west"})
      << "its nodes are not known yet";
  usage(kEarlierHubsId);
  EXPECT_TRUE(reconciler.clusters_awaited().empty());
}

TEST_F(RecoveryReconcilerTest, AJobNeverCommittedAwaitsNoCluster) {
  Outbox out;
  const RestoredDispatch prepared{kEarlierHubsId, false, {"west"}, "", 0};
  reconciler.on_restored(submit("long"), &prepared, now, out);
  EXPECT_TRUE(reconciler.clusters_awaited().empty());
}

// ---- a hub on a new state

// The state this hub runs on was made after the earlier hub's run started
// (its state was lost): that run is none of this state's, and the hub
// cannot tell whether it should run, so it is held, not stopped.
class NewStateReconcilerTest : public ReconcilerTest {
 protected:
  NewStateReconcilerTest() {
    reconciler.hold_runs_of_other_states(kThisHubsFirstId + 1,
                                         kThisHubsFirstId + (DispatchId{1} << 40));
  }
};

TEST_F(NewStateReconcilerTest, ARunFromBeforeTheStateIsHeldNotStopped) {
  const Outbox out = hello({long_running()});
  EXPECT_TRUE(out.cancels.empty());
  EXPECT_TRUE(out.aborts.empty());
  ASSERT_EQ(reconciler.held().size(), 1u);
  EXPECT_EQ(reconciler.held().begin()->first,
            (std::pair<std::string, DispatchId>{"west", kEarlierHubsId}));
  // Its progress changes nothing; its end releases the hold.
  EXPECT_TRUE(status(kEarlierHubsId, "long", "Running").cancels.empty());
  EXPECT_TRUE(status(kEarlierHubsId, "long", "Completed").cancels.empty());
  EXPECT_TRUE(reconciler.held().empty());
}

// A lost state's later generations are not this state's either.
TEST_F(NewStateReconcilerTest, ARunOfALaterGenerationIsHeldToo) {
  protocol::RunningDispatch later = long_running();
  later.dispatch_id = kThisHubsFirstId + (DispatchId{5} << 40) + 3;
  EXPECT_TRUE(hello({later}).cancels.empty());
  EXPECT_EQ(reconciler.held().size(), 1u);
}

TEST_F(NewStateReconcilerTest, DrainingItsClusterStopsAHeldRun) {
  hello({long_running()});
  usage();
  Outbox out;
  ASSERT_FALSE(reconciler.drain("west", now, out));
  ASSERT_EQ(out.cancels.size(), 1u);
  EXPECT_EQ(out.cancels[0].dispatch, kEarlierHubsId);
  EXPECT_TRUE(reconciler.held().empty());
}

TEST_F(NewStateReconcilerTest, ARunNoLongerListedIsNoLongerHeld) {
  hello({long_running()});
  hello({});
  EXPECT_TRUE(reconciler.held().empty());
}

// Without a new state, an unknown run of an earlier hub is stopped as before.
TEST_F(ReconcilerTest, AnUnknownRunOfThisStatesEarlierHubIsStopped) {
  EXPECT_EQ(hello({long_running()}).cancels.size(), 1u);
  EXPECT_TRUE(reconciler.held().empty());
}

}  // namespace
}  // namespace gantry::hub
