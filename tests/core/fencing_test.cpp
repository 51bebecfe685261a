// The reconciler for gangs over several clusters and clusters that vanish:
// split dispatches' admits and rejects, leases (silent, heard, lost), fencing
// of stale runs (a job never runs in two places; a stale run's end never
// changes its job), cordon and drain, and a hub restart in the middle of a
// two-phase dispatch (neither lost nor doubled).
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/core/reconciler_harness.hpp"

namespace gantry::hub {
namespace {

using testing::clusters_of;
using testing::has_event;
using testing::kEarlierHubsId;
using testing::kThisHubsFirstId;

class FencingTest : public testing::ReconcilerHarness {
 protected:
  // A cluster that said Hello and reported `nodes` 8-GPU nodes named <name>-<i>.
  void join(const std::string& name, int node_count = 1, Labels labels = {}) {
    Outbox out;
    reconciler.on_hello(protocol::Hello{name, std::move(labels), "test", {}, {}}, now, out);
    protocol::UsageReport report{name, {}, {}, {}};
    for (int i = 0; i < node_count; ++i)
      report.nodes.push_back(protocol::NodeUsage{
          name + "-" + std::to_string(i), {}, {{"nvidia.com/gpu", 8000}}, {}, "", {}});
    reconciler.on_usage(report, now, out);
  }
  JobId submit_job(const std::string& name, std::int32_t replicas, bool split = false) {
    JobRequest request;
    request.name = name;
    request.gang = make_uniform_gang(replicas, testing::gpus(8));
    request.gang.tasks[0].name = "worker";
    request.split_allowed = split;
    return submit(std::move(request));
  }
  DispatchId dispatched(const std::string& name, std::int32_t replicas = 1, bool split = false) {
    submit_job(name, replicas, split);
    const std::vector<Decision>& decisions = core.schedule(now);
    EXPECT_EQ(decisions.size(), 1u);
    return decisions.empty() ? 0 : decisions[0].dispatch;
  }
  Outbox admit(const std::string& cluster, DispatchId id, const std::string& job,
               std::int32_t part = 0) {
    Outbox out;
    reconciler.on_admit(
        cluster, protocol::Admit{id, job, part, part == 0 ? "10.0.0.1" : "", part == 0 ? 29500 : 0},
        now, out);
    return out;
  }
  Outbox reject(const std::string& cluster, DispatchId id, const std::string& job,
                const std::string& reason) {
    Outbox out;
    reconciler.on_reject(cluster, protocol::Reject{id, job, reason, 0}, now, out);
    return out;
  }
  Outbox status(const std::string& cluster, DispatchId id, const std::string& job,
                const std::string& phase) {
    Outbox out;
    reconciler.on_status(cluster, protocol::StatusUpdate{id, job, phase, {}, ""}, now, out);
    return out;
  }
  Outbox hello(const std::string& cluster, std::vector<protocol::RunningDispatch> running) {
    Outbox out;
    reconciler.on_hello(protocol::Hello{cluster, {}, "test", std::move(running), {}}, now, out);
    return out;
  }
  // `job` runs on `cluster` under `id`: admitted, committed, Running.
  void run(const std::string& cluster, DispatchId id, const std::string& job) {
    admit(cluster, id, job);
    status(cluster, id, job, "Running");
  }
  template <void (Reconciler::*Input)(const std::string&, TimeMs, Outbox&)>
  Outbox cluster_event(const std::string& cluster) {
    Outbox out;
    (reconciler.*Input)(cluster, now, out);
    return out;
  }
  JobId id(const std::string& name) const { return *core.find_job(name); }

  // "pair" split over east and west, every part admitted and committed.
  DispatchId committed_pair() {
    join("east");
    join("west");
    const DispatchId d = dispatched("pair", 2, /*split=*/true);
    admit("east", d, "pair", 0);
    admit("west", d, "pair", 1);
    return d;
  }
  // "job" running on one of east and west: which, and the other.
  struct OnOne {
    DispatchId dispatch;
    std::string cluster;
    std::string other;
  };
  OnOne job_running_on_one() {
    join("east");
    join("west");
    const DispatchId d = dispatched("job");
    const std::string first = core.cluster(core.find_dispatch(d)->parts[0].cluster).name();
    run(first, d, "job");
    return OnOne{d, first, first == "east" ? "west" : "east"};
  }
};

// ------------------------------------------------------------------ split gangs

TEST_F(FencingTest, ASplitGangCommitsOnlyWhenEveryPartAdmitted) {
  join("east");
  join("west");
  const DispatchId d = dispatched("pair", 2, /*split=*/true);
  const Outbox first = admit("east", d, "pair", 0);
  EXPECT_TRUE(first.commits.empty());
  EXPECT_TRUE(has_event(first, id("pair"), "part on east admitted; waiting for the other parts"));
  const Outbox second = admit("west", d, "pair", 1);
  EXPECT_EQ(second.commits, std::vector<DispatchId>{d});
  EXPECT_TRUE(has_event(second, id("pair"), "every part admitted; committed on east, west"));
  EXPECT_EQ(job("pair").phase, JobPhase::kRunning);
}

TEST_F(FencingTest, ARejectedPartAbortsTheAdmittedOnesAndBacksOffItsCluster) {
  join("east");
  join("west");
  join("north");
  const DispatchId d = dispatched("pair", 2, /*split=*/true);
  admit("east", d, "pair", 0);
  const Outbox refused = reject("west", d, "pair", "west-0 has 0 free nvidia.com/gpu");
  EXPECT_EQ(clusters_of(refused.aborts), std::vector<std::string>{"east"});
  EXPECT_TRUE(refused.cancels.empty()) << "nothing started: abort, not cancel";
  EXPECT_EQ(refused.aborts[0].dispatch, d);
  EXPECT_EQ(job("pair").phase, JobPhase::kPending);
  EXPECT_EQ(core.next_backoff_end(now), now + 1'000);
  const std::vector<Decision>& again = core.schedule(now);
  ASSERT_EQ(again.size(), 1u);
  std::vector<std::string> parts;
  for (const DispatchPart& part : core.find_dispatch(again[0].dispatch)->parts)
    parts.push_back(core.cluster(part.cluster).name());
  EXPECT_EQ(parts, (std::vector<std::string>{"east", "north"})) << "west is backed off";
  const Outbox late = admit("west", d, "pair", 1);  // the old dispatch, admitted late
  EXPECT_EQ(clusters_of(late.aborts), std::vector<std::string>{"west"});
  EXPECT_TRUE(late.commits.empty());
}

TEST_F(FencingTest, AFailedPartStopsTheOtherParts) {
  const DispatchId d = committed_pair();
  const Outbox done = status("east", d, "pair", "Completed");
  EXPECT_EQ(job("pair").phase, JobPhase::kRunning) << "west still runs";
  EXPECT_TRUE(done.ends.empty());
  const Outbox failed = status("west", d, "pair", "Failed");
  EXPECT_EQ(job("pair").phase, JobPhase::kFailed);
  ASSERT_EQ(failed.ends.size(), 1u);
  EXPECT_TRUE(failed.cancels.empty()) << "east had already completed";
}

// ------------------------------------------------------------------ leases and fencing

TEST_F(FencingTest, ASilentClusterKeepsItsJobsUntilTheLostGraceThenTheyMove) {
  const auto [d, first, other] = job_running_on_one();

  const Outbox silent = cluster_event<&Reconciler::on_cluster_silent>(first);
  EXPECT_FALSE(core.cluster(*core.find_cluster(first)).ready());
  EXPECT_EQ(job("job").phase, JobPhase::kRunning) << "a silent cluster is not yet lost";
  EXPECT_TRUE(core.schedule(now).empty());

  const Outbox heard = cluster_event<&Reconciler::on_cluster_heard>(first);
  EXPECT_TRUE(core.cluster(*core.find_cluster(first)).ready()) << "back before the lost grace";
  EXPECT_TRUE(heard.pass_wanted);

  cluster_event<&Reconciler::on_cluster_silent>(first);
  const Outbox lost = cluster_event<&Reconciler::on_cluster_lost>(first);
  EXPECT_EQ(job("job").phase, JobPhase::kPending);
  EXPECT_TRUE(has_event(lost, id("job"), "requeued: cluster " + first + " was lost"));
  EXPECT_NE(core.reason_text(job("job")).find("cluster " + first + " was lost"), std::string::npos);
  const std::vector<Decision>& moved = core.schedule(now);
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_EQ(core.cluster(moved[0].cluster).name(), other);
}

TEST_F(FencingTest, AReturningClustersStaleRunIsStoppedAndItsEndChangesNothing) {
  const auto [old_dispatch, first, other] = job_running_on_one();
  cluster_event<&Reconciler::on_cluster_silent>(first);
  cluster_event<&Reconciler::on_cluster_lost>(first);
  const std::vector<Decision> moved = core.schedule(now);
  ASSERT_EQ(moved.size(), 1u);
  const DispatchId new_dispatch = moved[0].dispatch;
  run(other, new_dispatch, "job");
  status(other, new_dispatch, "job", "Completed");
  ASSERT_EQ(job("job").phase, JobPhase::kCompleted);

  // The first cluster comes back, still running its copy.
  const Outbox back = hello(
      first,
      {protocol::RunningDispatch{old_dispatch, "job", {{"worker", first + "-0"}}, 0, 1, true}});
  ASSERT_EQ(back.cancels.size(), 1u);
  EXPECT_EQ(back.cancels[0].cluster, first);
  EXPECT_EQ(back.cancels[0].dispatch, old_dispatch);
  EXPECT_TRUE(has_event(back, id("job"), "stale copy on " + first));
  // Killed, it reports its end: the job's phase stays.
  const Outbox ended = status(first, old_dispatch, "job", "Aborted");
  EXPECT_EQ(job("job").phase, JobPhase::kCompleted);
  EXPECT_TRUE(ended.ends.empty() && ended.cancels.empty());
  const Outbox completed = status(first, old_dispatch, "job", "Completed");
  EXPECT_EQ(job("job").phase, JobPhase::kCompleted);
  EXPECT_TRUE(completed.ends.empty());
}

TEST_F(FencingTest, AStalePreparedPartIsAbortedNotCancelled) {
  join("east");
  const Outbox back =
      hello("east", {protocol::RunningDispatch{kThisHubsFirstId + 40, "old", {}, 0, 1, false}});
  EXPECT_EQ(clusters_of(back.aborts), std::vector<std::string>{"east"});
  EXPECT_TRUE(back.cancels.empty());
}

TEST_F(FencingTest, ALostSplitPartStopsItsPartsOnTheOtherClusters) {
  committed_pair();
  const Outbox lost = cluster_event<&Reconciler::on_cluster_lost>("west");
  EXPECT_EQ(job("pair").phase, JobPhase::kPending);
  std::vector<std::string> stopped = clusters_of(lost.cancels);
  std::sort(stopped.begin(), stopped.end());
  EXPECT_EQ(stopped, (std::vector<std::string>{"east", "west"}))
      << "east's part cannot finish alone; west's is stopped if it ever hears";
}

// ------------------------------------------------------------------ operators

TEST_F(FencingTest, DrainStopsTheJobAndMovesItOnceItsAgentSaysItStopped) {
  const auto [d, first, other] = job_running_on_one();
  Outbox drained;
  EXPECT_EQ(reconciler.drain(first, now, drained), std::nullopt);
  EXPECT_EQ(clusters_of(drained.cancels), std::vector<std::string>{first});
  EXPECT_TRUE(has_event(drained, id("job"), "stopping: cluster " + first + " is drained"));
  EXPECT_TRUE(core.cluster(*core.find_cluster(first)).cordoned());
  EXPECT_EQ(job("job").phase, JobPhase::kRunning);
  EXPECT_TRUE(core.schedule(now).empty()) << "not placed again before it stopped";
  const Outbox stopped = status(first, d, "job", "Aborted");
  EXPECT_EQ(job("job").phase, JobPhase::kPending) << "requeued, not failed";
  EXPECT_TRUE(stopped.ends.empty());
  EXPECT_TRUE(has_event(stopped, id("job"), "stopped on " + first + "; requeued"));
  const std::vector<Decision>& moved = core.schedule(now);
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_NE(core.cluster(moved[0].cluster).name(), first);
}

TEST_F(FencingTest, CordonAndUncordonNameTheCluster) {
  join("east");
  Outbox out;
  EXPECT_EQ(reconciler.cordon("nowhere", true, now, out), "cluster \"nowhere\" not found");
  EXPECT_EQ(reconciler.drain("nowhere", now, out), "cluster \"nowhere\" not found");
  EXPECT_EQ(reconciler.cordon("east", true, now, out), std::nullopt);
  EXPECT_TRUE(core.cluster(*core.find_cluster("east")).cordoned());
  submit_job("job", 1);
  EXPECT_TRUE(core.schedule(now).empty());
  EXPECT_EQ(reconciler.cordon("east", false, now, out), std::nullopt);
  EXPECT_EQ(core.schedule(now).size(), 1u);
}

TEST_F(FencingTest, TheClusterSelectorUsesTheLabelsFromHello) {
  join("gold", 1, {{"tier", "gold"}});
  join("silver", 1, {{"tier", "silver"}});
  JobRequest request;
  request.name = "picky";
  request.gang = make_uniform_gang(1, testing::gpus(8));
  request.cluster_selector = {{"tier", "silver"}};
  submit(std::move(request));
  const std::vector<Decision>& decisions = core.schedule(now);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(core.cluster(decisions[0].cluster).name(), "silver");
}

// ------------------------------------------------------------------ restart mid-dispatch

class RestartTest : public FencingTest {
 protected:
  RestartTest() { reconciler.begin_recovery(); }
  Outbox restore(const std::string& name, const RestoredDispatch* record,
                 std::int32_t replicas = 1) {
    Outbox out;
    reconciler.on_restored(submit_job(name, replicas, replicas > 1), record, now, out);
    return out;
  }
  Outbox end_recovery() {
    Outbox out;
    reconciler.end_recovery(now, out);
    return out;
  }
  static protocol::RunningDispatch part(const std::string& cluster, std::int32_t index,
                                        bool committed) {
    return protocol::RunningDispatch{kEarlierHubsId, "pair", {{"worker", cluster + "-0"}},
                                     index,          2,      committed};
  }
  Outbox usage(const std::string& cluster, bool busy) {
    protocol::UsageReport report{cluster, {}, {}, {}};
    report.nodes.push_back(
        protocol::NodeUsage{cluster + "-0", {}, {{"nvidia.com/gpu", 8000}}, {}, "", {}});
    if (busy) {
      report.nodes[0].allocated = {{"nvidia.com/gpu", 8000}};
      report.accounted_dispatches = {kEarlierHubsId};
    }
    Outbox out;
    reconciler.on_usage(report, now, out);
    return out;
  }
};

TEST_F(RestartTest, ACommittedSplitIsTakenBackWholeAndItsUnstartedPartIsCommittedAgain) {
  const RestoredDispatch record{kEarlierHubsId, true, {"east", "west"}, "10.0.0.1", 29500};
  restore("pair", &record, 2);
  hello("east", {part("east", 0, true)});
  usage("east", true);
  EXPECT_EQ(job("pair").phase, JobPhase::kPending) << "west's part not heard of yet";
  hello("west", {part("west", 1, false)});  // prepared; the Commit never reached it
  const Outbox reported = usage("west", true);
  EXPECT_EQ(job("pair").phase, JobPhase::kRunning);
  EXPECT_EQ(reported.commits, std::vector<DispatchId>{kEarlierHubsId})
      << "west hears the commit now";
  const Dispatch& dispatch = *core.find_dispatch(kEarlierHubsId);
  EXPECT_EQ(dispatch.parts.size(), 2u);
  EXPECT_EQ(dispatch.rendezvous_host, "10.0.0.1");
  EXPECT_EQ(dispatch.rendezvous_port, 29500);
  EXPECT_TRUE(reported.cancels.empty() && reported.aborts.empty());
  EXPECT_TRUE(end_recovery().cancels.empty());
  EXPECT_TRUE(core.schedule(now).empty()) << "not doubled";
}

TEST_F(RestartTest, ADispatchTheEarlierHubNeverCommittedIsAbortedAndPlacedAgain) {
  const RestoredDispatch record{kEarlierHubsId, false, {"east", "west"}, "", 0};
  restore("pair", &record, 2);
  Outbox said = hello("east", {part("east", 0, false)});
  said = usage("east", true);
  EXPECT_EQ(clusters_of(said.aborts), std::vector<std::string>{"east"});
  hello("west", {});
  usage("west", false);
  EXPECT_EQ(job("pair").phase, JobPhase::kPending);
  end_recovery();
  usage("east", false);  // east released the aborted part
  const std::vector<Decision>& decisions = core.schedule(now);
  ASSERT_EQ(decisions.size(), 1u) << "placed again: not lost";
  EXPECT_GT(decisions[0].dispatch, kEarlierHubsId);
}

TEST_F(RestartTest, ACommittedSplitMissingAPartWhenTheGraceEndsIsStoppedAndPlacedAgain) {
  const RestoredDispatch record{kEarlierHubsId, true, {"east", "west"}, "10.0.0.1", 29500};
  restore("pair", &record, 2);
  hello("east", {part("east", 0, true)});
  usage("east", true);
  hello("west", {});  // west's agent lost its part
  usage("west", false);
  const Outbox over = end_recovery();
  EXPECT_EQ(clusters_of(over.cancels), std::vector<std::string>{"east"});
  EXPECT_EQ(job("pair").phase, JobPhase::kPending);
  EXPECT_TRUE(core.schedule(now).empty())
      << "east's nodes are its stopped part's until it reports them free";
  usage("east", false);
  EXPECT_EQ(core.schedule(now).size(), 1u);
}

}  // namespace
}  // namespace gantry::hub
