// Atomic split gangs in the core: a job that allows it and fits no single
// cluster is placed across several, fewest parts first, minAvailable counted
// over every part; nothing is held when not even a split fits.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hub/job_request.hpp"
#include "tests/core/core_harness.hpp"

namespace gantry::hub {
namespace {

using testing::gpus;
using testing::nodes;

class SplitTest : public testing::CoreHarness {
 protected:
  // A gang of `replicas` 8-GPU workers that may be split.
  JobId submit_split(const std::string& name, std::int32_t replicas, std::int32_t min_available = 0,
                     bool allowed = true) {
    JobRequest request;
    request.name = name;
    request.gang = make_uniform_gang(replicas, gpus(8));
    if (min_available > 0) request.gang.min_available = min_available;
    request.split_allowed = allowed;
    return submit(std::move(request));
  }
  const Dispatch& dispatch_of(const std::string& name) {
    return *core.find_dispatch(job(name).dispatch);
  }
  std::vector<std::string> part_clusters(const std::string& name) {
    std::vector<std::string> out;
    for (const DispatchPart& part : dispatch_of(name).parts)
      out.push_back(core.cluster(part.cluster).name());
    return out;
  }
  std::int64_t free_gpus() const {
    std::int64_t total = 0;
    for (ClusterIndex c = 0; c < core.cluster_count(); ++c)
      total += core.cluster(c).total_free().gpus();
    return total;
  }
};

TEST_F(SplitTest, AGangNoClusterFitsIsSplitIntoTheFewestParts) {
  add_cluster("one", 1, 8);
  add_cluster("three", 3, 8);
  add_cluster("two", 2, 8);
  submit_split("big", 4);
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"big"});
  EXPECT_EQ(part_clusters("big"), (std::vector<std::string>{"three", "one"}))
      << "3 + 1: two parts, the largest first; one and two tie on 1 replica, one scores higher";
  const Dispatch& dispatch = dispatch_of("big");
  EXPECT_EQ(dispatch.world_size, 4);
  EXPECT_EQ(dispatch.parts[0].rank_offset, 0);
  EXPECT_EQ(dispatch.parts[1].rank_offset, 3);
  EXPECT_EQ(dispatch.parts[1].task_index_offset, std::vector<std::int32_t>{3});
  EXPECT_EQ(job("big").phase, JobPhase::kRunning);
  EXPECT_EQ(core.queues().node(job("big").queue).allocated.gpus(), 32) << "charged for every part";
}

TEST_F(SplitTest, WithoutTheAnnotationItWaitsSayingItIsLargerThanEveryCluster) {
  add_cluster("a", 2, 8);
  add_cluster("b", 2, 8);
  submit_split("big", 3, 0, /*allowed=*/false);
  EXPECT_TRUE(pass().dispatched.empty());
  EXPECT_EQ(job("big").reason.kind, PendingReason::Kind::kExceedsEveryCluster);
  EXPECT_EQ(free_gpus(), 32);
}

TEST_F(SplitTest, ASingleClusterThatFitsIsPreferredToASplit) {
  add_cluster("small", 1, 8);
  add_cluster("fits", 2, 8);
  submit_split("pair", 2);
  pass();
  EXPECT_EQ(part_clusters("pair"), std::vector<std::string>{"fits"});
}

TEST_F(SplitTest, MinAvailableCountsOverEveryPart) {
  add_cluster("a", 2, 8);
  add_cluster("b", 1, 8);
  submit_split("elastic", 4, /*min_available=*/3);
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"elastic"});
  EXPECT_EQ(dispatch_of("elastic").world_size, 3);
  EXPECT_EQ(part_clusters("elastic"), (std::vector<std::string>{"a", "b"}));
}

TEST_F(SplitTest, TasksKeepTheirIndicesAcrossParts) {
  add_cluster("a", 2, 8);
  add_cluster("b", 2, 8);
  JobRequest request;
  request.name = "mw";
  request.gang.tasks.push_back(TaskShape{"master", 1, gpus(8), {}});
  request.gang.tasks.push_back(TaskShape{"worker", 3, gpus(8), {}});
  request.gang.min_available = 4;
  request.split_allowed = true;
  submit(std::move(request));
  ASSERT_EQ(pass().dispatched, std::vector<std::string>{"mw"});
  const Dispatch& dispatch = dispatch_of("mw");
  ASSERT_EQ(dispatch.parts.size(), 2u);
  EXPECT_EQ(dispatch.parts[0].task_replicas, (std::vector<std::int32_t>{1, 1}));
  EXPECT_EQ(dispatch.parts[1].task_replicas, (std::vector<std::int32_t>{0, 2}));
  EXPECT_EQ(dispatch.parts[1].task_index_offset, (std::vector<std::int32_t>{1, 1}))
      << "the second part's workers are worker-1 and worker-2";
  EXPECT_EQ(dispatch.parts[1].rank_offset, 2);
}

TEST_F(SplitTest, NotEvenASplitFitsSaysSoAndHoldsNothing) {
  add_cluster("a", 1, 8);
  add_cluster("b", 1, 8);
  submit_split("huge", 3);
  EXPECT_TRUE(pass().dispatched.empty());
  EXPECT_EQ(job("huge").reason.kind, PendingReason::Kind::kSplitDoesNotFit);
  EXPECT_EQ(job("huge").reason.replicas_placed, 2);
  const std::string text = core.reason_text(job("huge"));
  EXPECT_NE(text.find("does not fit even split across clusters"), std::string::npos) << text;
  EXPECT_NE(text.find("2 cluster(s) together fit 2"), std::string::npos) << text;
  EXPECT_EQ(free_gpus(), 16) << "the tentative parts were given back";
}

TEST_F(SplitTest, PartsRespectTheClusterSelector) {
  add_cluster("eu-a", 1, 8);
  add_cluster("us", 4, 8);
  add_cluster("eu-b", 1, 8);
  core.add_cluster("eu-a", {{"region", "eu"}});
  core.add_cluster("eu-b", {{"region", "eu"}});
  JobRequest request;
  request.name = "eu-only";
  request.gang = make_uniform_gang(2, gpus(8));
  request.split_allowed = true;
  request.cluster_selector = {{"region", "eu"}};
  submit(std::move(request));
  pass();
  EXPECT_EQ(part_clusters("eu-only"), (std::vector<std::string>{"eu-a", "eu-b"}));
}

TEST_F(SplitTest, PartCountIsBounded) {
  core = SchedulerCore([] {
    SchedulerOptions options;
    options.max_split_parts = 2;
    return options;
  }());
  for (const char* name : {"a", "b", "c"}) add_cluster(name, 1, 8);
  submit_split("three-parts", 3);
  EXPECT_TRUE(pass().dispatched.empty());
  EXPECT_EQ(job("three-parts").reason.kind, PendingReason::Kind::kSplitDoesNotFit);
}

TEST_F(SplitTest, OnePartRefusedReleasesEveryPartAndBacksOffOnlyThatCluster) {
  const ClusterIndex a = add_cluster("a", 1, 8);
  const ClusterIndex b = add_cluster("b", 1, 8);
  add_cluster("c", 1, 8);
  submit_split("pair", 2);
  const std::vector<Decision> decisions = core.schedule(now);
  ASSERT_EQ(decisions.size(), 1u);
  const DispatchId id = decisions[0].dispatch;
  EXPECT_EQ(core.part_admitted(id, a, "10.0.0.1", 29500, now), AdmitOutcome::kWaitingForParts);
  const std::vector<ClusterIndex> others = core.part_rejected(id, b, "no room", now);
  EXPECT_EQ(others, std::vector<ClusterIndex>{a}) << "the admitted part must be aborted";
  EXPECT_EQ(job("pair").phase, JobPhase::kPending);
  EXPECT_EQ(free_gpus(), 24) << "nothing held";
  const std::vector<Decision>& again = core.schedule(now);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(part_clusters("pair"), (std::vector<std::string>{"a", "c"})) << "b is backed off";
}

TEST_F(SplitTest, ALostClusterWithdrawsEveryPartOfTheGang) {
  add_cluster("a", 1, 8);
  const ClusterIndex b = add_cluster("b", 1, 8);
  submit_split("pair", 2);
  pass();
  const std::vector<WithdrawnDispatch> withdrawn = core.cluster_lost(b, now);
  ASSERT_EQ(withdrawn.size(), 1u);
  EXPECT_EQ(withdrawn[0].clusters.size(), 2u) << "the part on a must be stopped too";
  EXPECT_EQ(job("pair").phase, JobPhase::kPending);
  EXPECT_EQ(job("pair").reason.kind, PendingReason::Kind::kClusterLost);
}

}  // namespace
}  // namespace gantry::hub
