// Backfill with time limits: a blocked job's planned start and nodes, which
// jobs may start ahead of it, and that none of them delays it.
#include <gtest/gtest.h>

#include <map>
#include <queue>
#include <random>

#include "hub/duration.hpp"
#include "hub/field_error.hpp"
#include "hub/runtime_estimate.hpp"
#include "hub/time_limit.hpp"
#include "tests/core/core_harness.hpp"

namespace gantry::hub::testing {
namespace {

constexpr TimeMs kSecond = 1000;

JobRequest limited_job(std::string name, std::int64_t gpu_count, TimeMs limit_ms) {
  JobRequest request = gpu_job(std::move(name), gpu_count);
  request.time_limit_ms = limit_ms;
  return request;
}

class BackfillTest : public CoreHarness {
 protected:
  BackfillTest() { add_cluster("c", 2, 8); }

  // Node 0 runs "a" (8 GPUs, until 100 s), node 1 runs "b" (4 GPUs, until
  // 1000 s); "big" (16 GPUs) waits for both.
  void start_a_and_b_then_block_big() {
    submit(limited_job("a", 8, 100 * kSecond));
    submit(limited_job("b", 4, 1000 * kSecond));
    ASSERT_EQ(pass().dispatched, (std::vector<std::string>{"a", "b"}));
    submit(gpu_job("big", 16));
  }

  const PlannedStart* planned(const std::string& name) const {
    return core.planned_start(job(name));
  }

  // Cluster c's agent reports its nodes with the named jobs' parts on them (and only those).
  void agent_reports(const std::vector<std::string>& running) {
    std::vector<NodeSpec> specs = nodes(2, 8, 64, "c");
    std::vector<DispatchId> accounted;
    for (const std::string& name : running) {
      const Dispatch* dispatch = core.find_dispatch(job(name).dispatch);
      ASSERT_NE(dispatch, nullptr) << name;
      accounted.push_back(dispatch->id);
      for (const NodeAssignment& entry : dispatch->parts[0].assignment)
        specs[entry.node].allocated += entry.amount;
    }
    core.report_usage(0, specs, accounted);
  }
};

TEST_F(BackfillTest, BlockedJobGetsThePlannedStartAndNodesOfTheLastEndItNeeds) {
  start_a_and_b_then_block_big();
  EXPECT_TRUE(pass().dispatched.empty());
  const PlannedStart* plan = planned("big");
  ASSERT_NE(plan, nullptr);
  EXPECT_EQ(plan->start, now + 1000 * kSecond);
  EXPECT_EQ(plan->cluster, 0u);
  EXPECT_EQ(plan->nodes.size(), 2u);
}

// Jobs still running past their planned end (an agent starts them a little
// after the hub's commit) must not open the reserved nodes to jobs that would
// delay the reserved one.
TEST_F(BackfillTest, JobsOverdueByTheirLimitStillHoldTheReservationsNodes) {
  for (int i = 0; i < 8; ++i) {
    submit(limited_job("filler-" + std::to_string(i), 1, 10 * kSecond));
    pass();
    now += 10;
  }
  submit(gpu_job("gang", 16));
  EXPECT_TRUE(pass().dispatched.empty());
  for (int i = 0; i < 4; ++i) submit(limited_job("short-" + std::to_string(i), 1, 2 * kSecond));
  EXPECT_EQ(pass().dispatched.size(), 4u) << "they end before the gang's planned start";
  for (int i = 0; i < 4; ++i) submit(limited_job("long-" + std::to_string(i), 1, 60 * kSecond));
  EXPECT_TRUE(pass().dispatched.empty()) << "they would delay the gang";
  now += kSecond;
  for (int i = 0; i < 4; ++i) finish("short-" + std::to_string(i));
  EXPECT_TRUE(pass().dispatched.empty()) << "the shorts' GPUs go back to the hold";
  now += 9 * kSecond + 100;  // every filler is past its limit; three have ended
  for (int i = 0; i < 3; ++i) {
    finish("filler-" + std::to_string(i));
    EXPECT_TRUE(pass().dispatched.empty()) << "the gang's nodes are still held, " << i;
    now += 7;
  }
  for (int i = 3; i < 8; ++i) finish("filler-" + std::to_string(i));
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"gang"});
}

// An agent's completion and its next usage report (which no longer counts the
// ended job) come in either order. In between, the reserved gang keeps a plan
// and its nodes stay held: seeing the end twice, or not at all, opened them to
// jobs that would delay it.
TEST_F(BackfillTest, EndsAndUsageReportsInEitherOrderKeepTheReservationsNodesHeld) {
  std::vector<std::string> running;
  for (int i = 0; i < 8; ++i) {
    running.push_back("filler-" + std::to_string(i));
    submit(limited_job(running.back(), 1, 10 * kSecond));
    ASSERT_EQ(pass().dispatched.size(), 1u);
  }
  agent_reports(running);
  submit(gpu_job("gang", 16));
  EXPECT_TRUE(pass().dispatched.empty());
  for (int i = 0; i < 4; ++i) submit(limited_job("long-" + std::to_string(i), 1, 60 * kSecond));
  EXPECT_TRUE(pass().dispatched.empty()) << "they would delay the gang";
  now += 10 * kSecond + 100;  // every filler is past its limit
  for (int i = 0; i < 8; ++i) {
    const std::string filler = "filler-" + std::to_string(i);
    const bool completion_first = i % 2 == 0;
    if (completion_first) {
      finish(filler);
      EXPECT_TRUE(pass().dispatched.empty()) << "ended, still counted by the nodes: " << filler;
      ASSERT_NE(planned("gang"), nullptr) << filler;
      EXPECT_EQ(planned("gang")->start, now) << filler;
    }
    std::erase(running, filler);
    agent_reports(running);
    if (i == 7) break;
    EXPECT_TRUE(pass().dispatched.empty()) << "reported gone: " << filler;
    if (!completion_first) {
      finish(filler);
      EXPECT_TRUE(pass().dispatched.empty()) << "ended after the report: " << filler;
    }
    now += 7;
  }
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"gang"});
}

TEST_F(BackfillTest, JobEndingBeforeThePlannedStartBackfills) {
  start_a_and_b_then_block_big();
  submit(limited_job("short", 4, 500 * kSecond));
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"short"});
  EXPECT_EQ(planned("big")->start, now + 1000 * kSecond);
}

TEST_F(BackfillTest, JobStillRunningAtThePlannedStartWaitsOnReservedNodes) {
  start_a_and_b_then_block_big();
  submit(limited_job("long", 4, 5000 * kSecond));
  submit(gpu_job("unlimited", 4));
  EXPECT_TRUE(pass().dispatched.empty());
  EXPECT_EQ(job("long").phase, JobPhase::kPending);
  EXPECT_EQ(job("unlimited").phase, JobPhase::kPending);
}

TEST_F(BackfillTest, LongJobsUseNodesNoReservationNeeds) {
  start_a_and_b_then_block_big();
  add_cluster("spare", 1, 8);
  submit(gpu_job("unlimited", 8));
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"unlimited"});
  EXPECT_EQ(job("unlimited").cluster, *core.find_cluster("spare"));
}

TEST_F(BackfillTest, ReservationSurvivesPassesAndMovesEarlierWhenAJobEndsEarly) {
  start_a_and_b_then_block_big();
  pass();
  const TimeMs first = planned("big")->start;
  now += 10 * kSecond;
  submit(limited_job("later", 1, 5000 * kSecond));
  pass();
  EXPECT_EQ(planned("big")->start, first);
  now += 10 * kSecond;
  finish("b");  // 970 s before its limit
  pass();
  EXPECT_EQ(planned("big")->start, core.job(*core.find_job("a")).started_ms + 100 * kSecond);
}

TEST_F(BackfillTest, ReservedJobStartsWhenItsNodesFree) {
  start_a_and_b_then_block_big();
  pass();
  now += 100 * kSecond;
  finish("a");
  EXPECT_TRUE(pass().dispatched.empty());
  now += 900 * kSecond;
  finish("b");
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"big"});
  EXPECT_EQ(planned("big"), nullptr);
}

TEST_F(BackfillTest, WithoutTimeLimitsThereIsNoPlanAndFirstFitStands) {
  submit(gpu_job("a", 8));
  submit(gpu_job("b", 4));
  pass();
  submit(gpu_job("big", 16));
  submit(gpu_job("small", 4));
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"small"});
  EXPECT_EQ(planned("big"), nullptr);
}

class NoBackfillTest : public CoreHarness {
 protected:
  static SchedulerOptions first_fit() {
    SchedulerOptions options;
    options.reservations = 0;
    return options;
  }
  NoBackfillTest() : CoreHarness(first_fit()) { add_cluster("c", 2, 8); }
};

TEST_F(NoBackfillTest, ZeroReservationsIsPlainFirstFitEvenWithLimits) {
  submit(limited_job("a", 8, 100 * kSecond));
  submit(limited_job("b", 4, 1000 * kSecond));
  pass();
  submit(gpu_job("big", 16));
  submit(gpu_job("unlimited", 4));
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"unlimited"});
  EXPECT_EQ(core.planned_start(job("big")), nullptr);
}

TEST_F(BackfillTest, StarvingJobPastItsSlaIsReservedAheadOfTheQueueHead) {
  start_a_and_b_then_block_big();
  JobRequest starving = gpu_job("starving", 12);
  starving.sla_waiting_ms = 5 * kSecond;
  submit(std::move(starving));
  now += 10 * kSecond;
  pass();
  ASSERT_NE(planned("starving"), nullptr);
  // Two 8-GPU replicas (whole nodes), so it needs b's end too.
  EXPECT_EQ(planned("starving")->start, job("b").started_ms + 1000 * kSecond);
  // The head of the queue order plans only on what the starving job leaves:
  // nothing of this cluster, whatever ends when.
  EXPECT_EQ(planned("big"), nullptr);
}

TEST_F(BackfillTest, SecondReservationDoesNotPlanOnTheFirstOnesNodes) {
  SchedulerOptions options;
  options.reservations = 2;
  SchedulerCore conservative(options);
  const ClusterIndex c = conservative.add_cluster("c");
  conservative.report_usage(c, nodes(2, 8), {});
  conservative.set_cluster_ready(c, true);
  auto submit_to = [&](JobRequest request) { return conservative.submit(std::move(request), now); };
  submit_to(limited_job("a", 8, 100 * kSecond));
  submit_to(limited_job("b", 8, 1000 * kSecond));
  for (const Decision& d : conservative.schedule(now)) conservative.admitted(d.dispatch, now);
  const JobId first = submit_to(gpu_job("first", 8));
  const JobId second = submit_to(gpu_job("second", 8));
  EXPECT_TRUE(conservative.schedule(now).empty());
  ASSERT_NE(conservative.planned_start(conservative.job(first)), nullptr);
  ASSERT_NE(conservative.planned_start(conservative.job(second)), nullptr);
  EXPECT_EQ(conservative.planned_start(conservative.job(first))->start, now + 100 * kSecond);
  EXPECT_EQ(conservative.planned_start(conservative.job(second))->start, now + 1000 * kSecond);
}

// ------------------------------------------------------------------ time limits at submit

// ------------------------------------------------------------------ learned runtimes

TEST(RuntimeEstimateTest, ExpectsTheMeanFractionOfTheLimitEndedRunsTook) {
  RuntimeEstimate estimate;
  EXPECT_EQ(estimate.expected_runtime(1000), 1000) << "the limit, before any run ended";
  estimate.observe(300, 1000);
  estimate.observe(50, 100);
  EXPECT_DOUBLE_EQ(estimate.fraction(), 0.4);
  EXPECT_EQ(estimate.expected_runtime(1000), 400);
  estimate.observe(5000, 1000);  // ended late: it took all of its limit
  EXPECT_DOUBLE_EQ(estimate.fraction(), 0.6);
  EXPECT_EQ(estimate.expected_runtime(1), 1) << "at least 1 ms, never past the limit";
  EXPECT_EQ(estimate.runs(), 3);
}

TEST(RuntimeEstimateTest, PlannedRuntimesAreNamedAsTheFlagsTakeThem) {
  EXPECT_EQ(parse_planned_runtimes("learned"), PlannedRuntimes::kLearned);
  EXPECT_EQ(parse_planned_runtimes("limits"), PlannedRuntimes::kLimits);
  EXPECT_FALSE(parse_planned_runtimes("guess").has_value());
  EXPECT_EQ(planned_runtimes_name(PlannedRuntimes::kLearned), "learned");
}

class LearnedRuntimesTest : public CoreHarness {
 protected:
  static SchedulerOptions learned() {
    SchedulerOptions options;
    options.planned_runtimes = PlannedRuntimes::kLearned;
    return options;
  }
  LearnedRuntimesTest() : CoreHarness(learned()) { add_cluster("c", 2, 8); }

  // A run ends after half its limit: the queue's runs are expected to take half theirs.
  void learn_half() {
    submit(limited_job("teach", 8, 100 * kSecond));
    ASSERT_EQ(pass().dispatched, std::vector<std::string>{"teach"});
    now += 50 * kSecond;
    finish("teach");
  }

  // Node 0 runs "a" (8 GPUs, limit 100 s, ends after 50 s), node 1 "b" (4 GPUs,
  // limit 1000 s); "big" (16 GPUs) waits. Returns when a and b started.
  TimeMs block_big_behind_b() {
    learn_half();
    submit(limited_job("a", 8, 100 * kSecond));
    submit(limited_job("b", 4, 1000 * kSecond));
    EXPECT_EQ(pass().dispatched, (std::vector<std::string>{"a", "b"}));
    const TimeMs started = now;
    now += 50 * kSecond;
    finish("a");
    submit(gpu_job("big", 16));
    EXPECT_TRUE(pass().dispatched.empty());
    return started;
  }

  const PlannedStart* planned(const std::string& name) const {
    return core.planned_start(job(name));
  }
};

TEST_F(LearnedRuntimesTest, TheReservationIsPlannedAtTheRunsExpectedEnds) {
  const TimeMs started = block_big_behind_b();
  ASSERT_NE(planned("big"), nullptr);
  EXPECT_EQ(planned("big")->start, started + 500 * kSecond) << "half of b's 1000 s limit";
}

TEST_F(LearnedRuntimesTest, ARunPastItsExpectedEndIsPlannedToItsLimit) {
  const TimeMs started = block_big_behind_b();
  now = started + 501 * kSecond;
  pass();
  ASSERT_NE(planned("big"), nullptr);
  EXPECT_EQ(planned("big")->start, started + 1000 * kSecond);
}

TEST_F(LearnedRuntimesTest, OnlyJobsWhoseLimitEndsByThePlannedStartUseWhatItHolds) {
  const TimeMs started = block_big_behind_b();
  // Expected to end after 300 s, before the plan, but its limit ends after it.
  submit(limited_job("ends-by-expectation", 8, 600 * kSecond));
  submit(limited_job("ends-by-limit", 8, 400 * kSecond));
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"ends-by-limit"});
  EXPECT_EQ(planned("big")->start, started + 500 * kSecond);
}

TEST_F(LearnedRuntimesTest, AReservationKeepsItsClusterWhenThePlanThereMovesLater) {
  const ClusterIndex d = add_cluster("d", 2, 8);
  learn_half();
  for (const char* name : {"c0", "c1"}) submit(limited_job(name, 8, 1000 * kSecond));
  for (const char* name : {"d0", "d1"}) submit(limited_job(name, 8, 1600 * kSecond));
  ASSERT_EQ(pass().dispatched.size(), 4u);
  ASSERT_EQ(job("c0").cluster, 0u);
  ASSERT_EQ(job("c1").cluster, 0u);
  ASSERT_EQ(job("d0").cluster, d);
  const TimeMs started = now;
  submit(gpu_job("big", 16));
  pass();
  ASSERT_NE(planned("big"), nullptr);
  EXPECT_EQ(planned("big")->cluster, 0u);
  EXPECT_EQ(planned("big")->start, started + 500 * kSecond);
  now = started + 501 * kSecond;  // c0 and c1 run past their expected ends; d's are at 800 s
  pass();
  EXPECT_EQ(planned("big")->cluster, 0u) << "moving would give up what it holds on c";
  EXPECT_EQ(planned("big")->start, started + 1000 * kSecond);
}

TEST(TimeLimitTest, QueueDefaultThenMaximumApplyToJobsWithoutALimit) {
  QueueSpec queue;
  queue.name = "q";
  EXPECT_EQ(resolve_time_limit(-1, queue), 0);
  queue.max_time_limit_ms = 4 * 3'600'000;
  EXPECT_EQ(resolve_time_limit(-1, queue), 4 * 3'600'000);
  queue.default_time_limit_ms = 3'600'000;
  EXPECT_EQ(resolve_time_limit(-1, queue), 3'600'000);
  EXPECT_EQ(resolve_time_limit(90'000, queue), 90'000);
}

TEST(TimeLimitTest, LimitAboveTheQueueMaximumIsRefusedNamingTheAnnotation) {
  QueueSpec queue;
  queue.name = "q";
  queue.max_time_limit_ms = 3'600'000;
  try {
    resolve_time_limit(5'400'000, queue);
    FAIL() << "a limit above the maximum was accepted";
  } catch (const FieldError& e) {
    EXPECT_EQ(e.field(), "metadata.annotations.gantry.io/time-limit");
    EXPECT_EQ(e.value(), "1h30m");
    EXPECT_NE(std::string(e.what()).find("at most 1h"), std::string::npos) << e.what();
  }
}

// ------------------------------------------------------------------ property

// Seeded random workloads, every job with a limit and an actual run of at
// most that limit, passes at every submission and end: a job that got a
// planned start starts no later than the first one it got.
// With learned runtimes every run takes half its limit, which the core learns
// from the first end: from then on plans are made from the real ends, and the
// same holds for every plan made after that first end.
class BackfillReplay {
 public:
  explicit BackfillReplay(std::uint64_t seed, PlannedRuntimes runtimes = PlannedRuntimes::kLimits)
      : rng_(seed), core_(options_for(runtimes)), learned_(runtimes == PlannedRuntimes::kLearned) {
    const int cluster_count = pick(1, 3);
    for (int c = 0; c < cluster_count; ++c) {
      const ClusterIndex index = core_.add_cluster("c" + std::to_string(c));
      core_.report_usage(index, nodes(pick(2, 5), 8, 64, "c" + std::to_string(c)), {});
      core_.set_cluster_ready(index, true);
    }
    for (int j = 0; j < 120; ++j) {
      arrivals_.push(Arrival{static_cast<TimeMs>(pick(0, 2000)) * kSecond, j});
    }
  }

  // Runs to the end; returns how many jobs were reserved at some point.
  int run() {
    while (!arrivals_.empty() || !ends_.empty()) {
      now_ = next_time();
      while (!ends_.empty() && ends_.top().at == now_) {
        if (core_.find_dispatch(ends_.top().dispatch) != nullptr)
          core_.finished(ends_.top().dispatch, JobPhase::kCompleted, "", now_);
        ends_.pop();
        any_ended_ = true;
      }
      while (!arrivals_.empty() && arrivals_.top().at == now_) {
        submit(arrivals_.top().index);
        arrivals_.pop();
      }
      pass();
    }
    return static_cast<int>(first_plan_.size());
  }

 private:
  struct Arrival {
    TimeMs at;
    int index;
    bool operator>(const Arrival& o) const { return at != o.at ? at > o.at : index > o.index; }
  };
  struct End {
    TimeMs at;
    DispatchId dispatch;
    bool operator>(const End& o) const { return at != o.at ? at > o.at : dispatch > o.dispatch; }
  };

  static SchedulerOptions options_for(PlannedRuntimes runtimes) {
    SchedulerOptions options;
    options.planned_runtimes = runtimes;
    return options;
  }

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  TimeMs next_time() const {
    TimeMs next = kNever;
    if (!arrivals_.empty()) next = arrivals_.top().at;
    if (!ends_.empty()) next = std::min(next, ends_.top().at);
    return next;
  }

  void submit(int index) {
    static const std::int64_t sizes[] = {1, 1, 1, 2, 4, 8, 8, 16, 24};
    JobRequest request = gpu_job("j" + std::to_string(index), sizes[pick(0, 8)]);
    request.time_limit_ms = static_cast<TimeMs>(pick(10, 600)) * kSecond;
    const TimeMs limit = request.time_limit_ms;
    const JobId id = core_.submit(std::move(request), now_);
    run_for_[id] = learned_ ? limit / 2 : limit * pick(30, 100) / 100;
  }

  void pass() {
    for (const Decision& d : core_.schedule(now_)) {
      ASSERT_EQ(d.kind, Decision::Kind::kDispatch);
      core_.admitted(d.dispatch, now_);
      ends_.push(End{now_ + run_for_.at(d.job), d.dispatch});
      auto first = first_plan_.find(d.job);
      if (first != first_plan_.end()) {
        EXPECT_LE(now_, first->second) << core_.job(d.job).name << " started after its plan";
      }
    }
    for (JobId id = 0; id < core_.job_count(); ++id) {
      const PlannedStart* plan = core_.planned_start(core_.job(id));
      if (plan == nullptr || (learned_ && !any_ended_)) continue;
      EXPECT_GE(plan->start, now_);
      auto [it, fresh] = first_plan_.emplace(id, plan->start);
      if (!fresh) {
        EXPECT_LE(plan->start, it->second) << core_.job(id).name << "'s plan moved later";
      }
    }
  }

  std::mt19937_64 rng_;
  SchedulerCore core_;
  TimeMs now_ = 0;
  std::priority_queue<Arrival, std::vector<Arrival>, std::greater<>> arrivals_;
  std::priority_queue<End, std::vector<End>, std::greater<>> ends_;
  std::map<JobId, TimeMs> run_for_;
  std::map<JobId, TimeMs> first_plan_;
  bool learned_ = false;
  bool any_ended_ = false;
};

TEST(BackfillPropertyTest, NoBackfilledJobDelaysAReservedJob) {
  int reserved = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    reserved += BackfillReplay(seed).run();
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GT(reserved, 100);  // the workloads do exercise reservations
}

TEST(BackfillPropertyTest, WithLearnedRuntimesNoBackfilledJobDelaysAReservedJob) {
  int reserved = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    reserved += BackfillReplay(seed, PlannedRuntimes::kLearned).run();
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GT(reserved, 100);
}

}  // namespace
}  // namespace gantry::hub::testing
