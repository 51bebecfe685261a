// The eviction rules on their own (hub/eviction_rules.hpp): which runs may be
// evicted for a pending job, on a hand-made queue tree. The searches that use
// them are tested in eviction_test and fair_share_test.
#include "hub/eviction_rules.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/core/core_fixtures.hpp"

namespace gantry::hub {
namespace {

using testing::gpus;

constexpr TimeMs kStarted = 1'000;
constexpr DispatchId kVictim = 1;

// A pool of 16 GPUs. Queue b runs a 12-GPU gang (job 0, dispatch 1); queue a
// asks for 8 (job 1, pending). Deserved shares water-fill to 8 each: b is 4
// above its share.
class EvictionRulesTest : public ::testing::Test {
 protected:
  EvictionRulesTest() {
    a = add("a");
    b = add("b");
    jobs.resize(3);
    jobs[0].queue = b;
    jobs[0].started_ms = kStarted;
    jobs[0].set_request(ResourceVector{}, gpus(12));
    jobs[1].queue = a;
    jobs[1].set_request(gpus(8), gpus(8));
    victim.id = kVictim;
    victim.job = 0;
    victim.amount = gpus(12);
    victim.committed = true;
    victim.committed_ms = kStarted;
    victim.parts.resize(1);
    victim.parts[0].state = PartState::kCommitted;
    tree.add_running(b, RunningKey{0, -1, kVictim}, gpus(12));
    tree.enqueue(a, PendingKey{0, 2, 1}, gpus(8));
    tree.refresh(gpus(16));
  }
  QueueIndex add(const std::string& name) {
    QueueSpec spec;
    spec.name = name;
    spec.parent = "root";
    return tree.apply(spec);
  }
  EvictionRules rules(TimeMs now = kStarted + 1) const {
    return EvictionRules{options, tree, jobs, now, kVictim + 1};
  }
  bool may_evict(Reclaim reclaim, TimeMs now = kStarted + 1) const {
    return rules(now).may_evict_for(jobs[1], victim, tree.node(b).allocated, reclaim);
  }

  SchedulerOptions options;
  QueueTree tree;
  std::vector<Job> jobs;
  Dispatch victim;
  QueueIndex a = 0;
  QueueIndex b = 0;
};

TEST_F(EvictionRulesTest, AQueueBelowItsShareReclaimsFromOneAboveIts) {
  const EvictionSearch search = rules().search_for(jobs[1], false, 1);
  EXPECT_TRUE(search.allowed);
  EXPECT_EQ(search.reclaim, Reclaim::kToDeserved);
  EXPECT_FALSE(search.preempt) << "nothing runs in its own queue";
  EXPECT_TRUE(may_evict(Reclaim::kToDeserved));
  EXPECT_FALSE(may_evict(Reclaim::kNo));
}

TEST_F(EvictionRulesTest, OneSearchPerQueuePerPassAndNonePastThePassLimit) {
  EXPECT_FALSE(rules().search_for(jobs[1], true, 1).allowed);
  EXPECT_FALSE(rules().search_for(jobs[1], false, 0).allowed);
  jobs[1].may_preempt = false;  // PriorityClass preemptionPolicy: Never
  EXPECT_FALSE(rules().search_for(jobs[1], false, 1).allowed);
}

TEST_F(EvictionRulesTest, AQueueTakingBackItsGuaranteeSearchesAgainAndSparesNoAge) {
  QueueSpec spec = tree.node(a).spec;
  spec.guarantee.set(kGpu, 8 * kMilli);
  tree.apply(spec);
  tree.refresh(gpus(16));
  const EvictionSearch search = rules().search_for(jobs[1], true, 1);
  EXPECT_TRUE(search.allowed) << "a guarantee comes back within one pass";
  EXPECT_EQ(search.reclaim, Reclaim::kToGuarantee);
  const TimeMs long_after = kStarted + options.reclaim_spares_after_ms + 1;
  EXPECT_FALSE(may_evict(Reclaim::kToDeserved, long_after)) << "spared by age";
  EXPECT_TRUE(may_evict(Reclaim::kToGuarantee, long_after));
}

TEST_F(EvictionRulesTest, ARunStartedByTheStarvationGuardIsSparedByReclaimTowardAShare) {
  jobs[0].submitted_ms = 0;
  jobs[0].sla_waiting_ms = kStarted;
  EXPECT_TRUE(EvictionRules::started_starving(jobs[0]));
  EXPECT_FALSE(may_evict(Reclaim::kToDeserved));
  EXPECT_TRUE(may_evict(Reclaim::kToGuarantee));
}

TEST_F(EvictionRulesTest, NoneFromThisPassNoneStoppingNoneWithinTheMinimumRuntime) {
  EXPECT_FALSE((EvictionRules{options, tree, jobs, kStarted + 1, kVictim}.may_evict_for(
      jobs[1], victim, tree.node(b).allocated, Reclaim::kToDeserved)))
      << "placed by this very pass";
  options.min_runtime_ms = 10'000;
  EXPECT_FALSE(may_evict(Reclaim::kToGuarantee));
  EXPECT_TRUE(may_evict(Reclaim::kToGuarantee, kStarted + 10'000));
  victim.parts[0].state = PartState::kStopping;
  EXPECT_FALSE(may_evict(Reclaim::kToGuarantee, kStarted + 10'000)) << "already on its way out";
}

TEST_F(EvictionRulesTest, AQueueNoHigherThanItsShareOrNotReclaimableKeepsItsRuns) {
  victim.amount = gpus(4);
  EXPECT_TRUE(rules().may_evict_for(jobs[1], victim, gpus(9), Reclaim::kToDeserved));
  EXPECT_FALSE(rules().may_evict_for(jobs[1], victim, gpus(8), Reclaim::kToDeserved))
      << "with 8 GPUs b holds no more than its share";
  QueueSpec spec = tree.node(b).spec;
  spec.reclaimable = false;
  tree.apply(spec);
  EXPECT_FALSE(may_evict(Reclaim::kToGuarantee));
}

TEST_F(EvictionRulesTest, PreemptionTakesOnlyStrictlyLowerPriorityInTheJobsOwnQueue) {
  jobs[0].queue = a;
  jobs[1].priority = 1;
  EXPECT_TRUE(may_evict(Reclaim::kNo));
  jobs[0].priority = 1;
  EXPECT_FALSE(may_evict(Reclaim::kToGuarantee)) << "equal priority: never, whatever the reclaim";
  options.preemption = false;
  jobs[1].priority = 2;
  EXPECT_FALSE(may_evict(Reclaim::kNo));
}

}  // namespace
}  // namespace gantry::hub
