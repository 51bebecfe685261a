// Two-phase dispatch in the core, part by part: admits wait for every part,
// one refusal releases every part and backs that cluster off (exponential,
// capped), parts end one by one, a drain moves a job only once it stopped,
// and a not-ready cluster keeps what it runs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/core/core_harness.hpp"

namespace gantry::hub {
namespace {

using testing::gpus;
using testing::nodes;

class TwoPhaseTest : public testing::CoreHarness {
 protected:
  TwoPhaseTest() : CoreHarness(options()) {}
  static SchedulerOptions options() {
    SchedulerOptions options;
    options.backoff_base_ms = 1'000;
    options.backoff_max_ms = 4'000;
    return options;
  }
  // A split pair over "a" and "b", dispatched (every part preparing).
  DispatchId split_pair() {
    a = add_cluster("a", 1, 8);
    b = add_cluster("b", 1, 8);
    JobRequest request;
    request.name = "pair";
    request.gang = make_uniform_gang(2, gpus(8));
    request.split_allowed = true;
    submit(std::move(request));
    const std::vector<Decision>& decisions = core.schedule(now);
    EXPECT_EQ(decisions.size(), 1u);
    return decisions.empty() ? 0 : decisions[0].dispatch;
  }
  // Both parts admitted and committed.
  DispatchId running_pair() {
    const DispatchId id = split_pair();
    core.part_admitted(id, a, "10.0.0.1", 29500, now);
    EXPECT_EQ(core.part_admitted(id, b, "", 0, now), AdmitOutcome::kAllAdmitted);
    core.commit(id, now);
    return id;
  }
  ClusterIndex a = kNoCluster, b = kNoCluster;
};

TEST_F(TwoPhaseTest, CommitOnlyAfterEveryPartIsAdmitted) {
  const DispatchId id = split_pair();
  EXPECT_EQ(job("pair").phase, JobPhase::kDispatched);
  EXPECT_NE(core.reason_text(job("pair")).find("preparing on a, b (0 of 2 part(s) admitted)"),
            std::string::npos)
      << core.reason_text(job("pair"));
  EXPECT_EQ(core.part_admitted(id, b, "", 0, now), AdmitOutcome::kWaitingForParts);
  EXPECT_EQ(core.part_admitted(id, b, "", 0, now), AdmitOutcome::kIgnored) << "a duplicate";
  EXPECT_EQ(core.part_admitted(id, a, "10.0.0.1", 29500, now), AdmitOutcome::kAllAdmitted);
  EXPECT_EQ(job("pair").phase, JobPhase::kDispatched) << "admitted is not yet committed";
  core.commit(id, now);
  EXPECT_EQ(job("pair").phase, JobPhase::kRunning);
  EXPECT_EQ(job("pair").started_ms, now);
  const Dispatch& dispatch = *core.find_dispatch(id);
  EXPECT_TRUE(dispatch.committed);
  EXPECT_EQ(dispatch.rendezvous_host, "10.0.0.1") << "part 0's agent names the rendezvous";
  EXPECT_EQ(dispatch.rendezvous_port, 29500);
  EXPECT_EQ(core.part_admitted(id, a, "", 0, now), AdmitOutcome::kIgnored) << "a late duplicate";
}

TEST_F(TwoPhaseTest, AnAdmitFromAClusterWithoutAPartIsIgnored) {
  const DispatchId id = split_pair();
  const ClusterIndex c = add_cluster("c", 1, 8);
  EXPECT_EQ(core.part_admitted(id, c, "", 0, now), AdmitOutcome::kIgnored);
  EXPECT_EQ(core.part_admitted(id + 1000, a, "", 0, now), AdmitOutcome::kIgnored);
}

TEST_F(TwoPhaseTest, BackoffDoublesWithEachRefusalUpToTheCap) {
  const ClusterIndex c = add_cluster("c", 1, 8);
  submit(testing::gpu_job("job", 8));
  const JobId id = *core.find_job("job");
  const TimeMs expected[] = {1'000, 2'000, 4'000, 4'000};
  for (TimeMs wait : expected) {
    ASSERT_EQ(scheduled_names(), std::vector<std::string>{"job"});
    const std::vector<ClusterIndex> others =
        core.part_rejected(job("job").dispatch, c, "no room", now);
    EXPECT_TRUE(others.empty());
    EXPECT_EQ(core.backed_off_until(id, c), now + wait);
    EXPECT_EQ(core.next_backoff_end(now), now + wait) << "when a pass may place it again";
    EXPECT_TRUE(scheduled_names().empty());
    now += wait;
  }
}

TEST_F(TwoPhaseTest, PartsEndOneByOneAndTheJobCompletesWithTheLast) {
  const DispatchId id = running_pair();
  core.update_tasks(id, a, {protocol::TaskStatus{"worker", 0, 1, 0, 0}});
  core.update_tasks(id, b, {protocol::TaskStatus{"worker", 0, 1, 0, 0}});
  ASSERT_EQ(job("pair").tasks.size(), 1u);
  EXPECT_EQ(job("pair").tasks[0].running, 2) << "summed over parts";
  PartEnd end = core.part_finished(id, a, JobPhase::kCompleted, "", now);
  EXPECT_EQ(end.kind, PartEnd::Kind::kPartDone);
  EXPECT_EQ(job("pair").phase, JobPhase::kRunning);
  EXPECT_EQ(core.part_finished(id, a, JobPhase::kCompleted, "", now).kind, PartEnd::Kind::kIgnored);
  end = core.part_finished(id, b, JobPhase::kCompleted, "", now);
  EXPECT_EQ(end.kind, PartEnd::Kind::kJobEnded);
  EXPECT_TRUE(end.stop.empty());
  EXPECT_EQ(job("pair").phase, JobPhase::kCompleted);
}

TEST_F(TwoPhaseTest, AFailedPartFailsTheGangAndTheOtherPartsMustStop) {
  const DispatchId id = running_pair();
  const PartEnd end = core.part_finished(id, b, JobPhase::kFailed, "worker-1 exited 1", now);
  EXPECT_EQ(end.kind, PartEnd::Kind::kJobEnded);
  EXPECT_EQ(end.stop, std::vector<ClusterIndex>{a});
  EXPECT_EQ(job("pair").phase, JobPhase::kFailed);
  EXPECT_EQ(job("pair").history().message, "worker-1 exited 1");
  EXPECT_EQ(core.find_dispatch(id), nullptr);
}

TEST_F(TwoPhaseTest, ARefusedCommitRequeuesAndTheOtherPartsMustStop) {
  const DispatchId id = running_pair();
  const std::vector<ClusterIndex> others =
      core.part_rejected(id, a, "dispatch 1: prepared part expired before its commit", now);
  EXPECT_EQ(others, std::vector<ClusterIndex>{b});
  EXPECT_EQ(job("pair").phase, JobPhase::kPending);
}

TEST_F(TwoPhaseTest, DrainMovesAJobOnlyOnceEveryPartStopped) {
  const DispatchId id = running_pair();
  add_cluster("c", 2, 8);
  const std::vector<WithdrawnDispatch> stopping = core.drain(a, now);
  ASSERT_EQ(stopping.size(), 1u);
  EXPECT_EQ(stopping[0].clusters, (std::vector<ClusterIndex>{a, b}))
      << "every part of the gang stops";
  EXPECT_TRUE(core.cluster(a).cordoned());
  EXPECT_EQ(job("pair").phase, JobPhase::kRunning) << "still running until its agents stop it";
  EXPECT_NE(core.reason_text(job("pair")).find("stopping on a, b (drained)"), std::string::npos);
  EXPECT_TRUE(scheduled_names().empty()) << "not placed twice";
  EXPECT_EQ(core.part_finished(id, a, JobPhase::kFailed, "killed", now).kind,
            PartEnd::Kind::kPartDone);
  EXPECT_EQ(core.part_finished(id, b, JobPhase::kFailed, "killed", now).kind,
            PartEnd::Kind::kRequeued);
  EXPECT_EQ(job("pair").phase, JobPhase::kPending);
  EXPECT_EQ(job("pair").reason.kind, PendingReason::Kind::kDrained);
  EXPECT_EQ(scheduled_names(), std::vector<std::string>{"pair"});
  EXPECT_EQ(core.cluster(job("pair").cluster).name(), "c") << "not on the cordoned cluster";
}

TEST_F(TwoPhaseTest, DrainRequeuesAtOnceWhatNeverStarted) {
  split_pair();
  const std::vector<WithdrawnDispatch> stopping = core.drain(b, now);
  ASSERT_EQ(stopping.size(), 1u);
  EXPECT_EQ(job("pair").phase, JobPhase::kPending);
  EXPECT_EQ(job("pair").reason.kind, PendingReason::Kind::kDrained);
}

TEST_F(TwoPhaseTest, ANotReadyClusterKeepsWhatItRunsButGetsNothingNew) {
  const ClusterIndex c = add_cluster("c", 2, 8);
  submit(testing::gpu_job("first", 8));
  pass();
  core.set_cluster_ready(c, false);
  submit(testing::gpu_job("second", 8));
  EXPECT_TRUE(pass().dispatched.empty());
  EXPECT_EQ(job("first").phase, JobPhase::kRunning);
  EXPECT_EQ(core.queues().node(job("first").queue).allocated.gpus(), 8) << "still charged";
  core.set_cluster_ready(c, true);
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"second"});
}

TEST_F(TwoPhaseTest, ACordonedClusterGetsNoNewPlacementsUntilUncordoned) {
  const ClusterIndex c = add_cluster("c", 1, 8);
  core.set_cordoned(c, true);
  submit(testing::gpu_job("job", 8));
  EXPECT_TRUE(pass().dispatched.empty());
  EXPECT_EQ(core.reason_text(job("job")), "0/1 clusters may take it: 1 cordoned");
  core.set_cordoned(c, false);
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"job"});
}

}  // namespace
}  // namespace gantry::hub
