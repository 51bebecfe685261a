// The victims of one cluster's eviction plan (hub/victim_search.hpp) on a
// hand-made cluster and runs, outside any SchedulerCore; which clusters are
// searched and the evictions themselves are tested in eviction_test.
#include "hub/victim_search.hpp"

#include <gtest/gtest.h>

#include <set>
#include <unordered_map>
#include <vector>

#include "tests/core/core_fixtures.hpp"

namespace gantry::hub {
namespace {

using testing::gpus;
using testing::job_of;
using testing::nodes;
using testing::ready_cluster;

constexpr JobId kPending = 3;  // priority 1, one 8-GPU replica
constexpr DispatchId kFirstOfPass = 100;

// One queue; jobs 0, 1 and 2 run at priority 0 on a cluster of two 8-GPU
// nodes, so the pending job of priority 1 may preempt any of them.
class VictimSearchTest : public ::testing::Test {
 protected:
  VictimSearchTest() : cluster_(ready_cluster("c", nodes(2, 8))) {
    QueueSpec spec;
    spec.name = "q";
    spec.parent = "root";
    queue_ = tree_.apply(spec);
    jobs_.resize(4);
    for (Job& job : jobs_) job.queue = queue_;
    jobs_[kPending] = job_of(make_gpu_gang(8, 8));
    jobs_[kPending].queue = queue_;
    jobs_[kPending].priority = 1;
  }

  // Job `job` runs as dispatch `job + 1`, `gpu_count` GPUs on `node`; newer
  // runs come first in eviction order.
  void run(JobId job, NodeIndex node, std::int64_t gpu_count) {
    const DispatchId id = job + 1;
    Dispatch& dispatch = runs_[id];
    dispatch.id = id;
    dispatch.job = job;
    dispatch.amount = gpus(gpu_count);
    DispatchPart& part = dispatch.parts.emplace_back();
    part.cluster = 0;
    part.state = PartState::kCommitted;
    part.assignment.push_back(NodeAssignment{0, node, gpus(gpu_count)});
    cluster_.take(node, gpus(gpu_count));
    candidates_.insert(RunningKey{0, -static_cast<std::int64_t>(id), id});
  }

  VictimPlan plan() {
    const EvictionRules rules{options_, tree_, jobs_, 1'000, kFirstOfPass};
    const VictimSearch search(rules, runs_, placer_);
    return search.plan(kPending, cluster_, 0, candidates_, Reclaim::kNo, placer_.policy());
  }

  std::int64_t free_gpus(NodeIndex node) const { return cluster_.node(node).free.gpus(); }

  SchedulerOptions options_;
  QueueTree tree_;
  QueueIndex queue_ = 0;
  std::vector<Job> jobs_;
  std::unordered_map<DispatchId, Dispatch> runs_;
  std::set<RunningKey> candidates_;
  ClusterState cluster_;
  GangPlacer placer_;
};

// In eviction order the newest run (on node 1) goes first, but the gang fits
// only once node 0 is empty: the run on node 1 is kept, and the cluster is
// left as it was found.
TEST_F(VictimSearchTest, ARunWhoseRoomTheGangDoesNotNeedIsKept) {
  run(0, 1, 4);  // oldest
  run(1, 0, 8);
  run(2, 1, 4);  // newest: first in eviction order
  const VictimPlan found = plan();
  EXPECT_EQ(found.cluster, 0u);
  EXPECT_EQ(found.victims, std::vector<DispatchId>{2});
  EXPECT_EQ(free_gpus(0), 0);
  EXPECT_EQ(free_gpus(1), 0);
}

// A run the rules spare is never a victim: runs of the job's own priority
// may not be preempted, and the one run that may go frees half a node. The
// runs it released on the way are taken back.
TEST_F(VictimSearchTest, NoPlanWhenOnlyRunsTheRulesSpareWouldMakeRoom) {
  run(0, 1, 4);
  run(1, 0, 8);
  run(2, 1, 4);
  jobs_[1].priority = 1;
  jobs_[2].priority = 1;
  const VictimPlan found = plan();
  EXPECT_EQ(found.cluster, kNoCluster);
  EXPECT_TRUE(found.victims.empty());
  EXPECT_EQ(free_gpus(0), 0);
  EXPECT_EQ(free_gpus(1), 0);
}

// Runs of this very pass are never victims either (Prepares in flight).
TEST_F(VictimSearchTest, ARunPlacedByThisPassIsNotAVictim) {
  run(0, 0, 8);
  run(1, 1, 8);
  runs_.at(2).id = kFirstOfPass;  // dispatch of job 1: this pass's
  const VictimPlan found = plan();
  EXPECT_EQ(found.victims, std::vector<DispatchId>{1});
}

}  // namespace
}  // namespace gantry::hub
