// A pass that leaves a queue once every shape class left in it is known not to
// start (hub/pending_shapes.hpp), and whose reclaim searches walk only the runs
// of queues over their deserved share (hub/over_share.cpp), decides exactly
// what a pass visiting every pending job and every run decides: two cores, one
// incremental and one not, are driven through
// the same seeded random workloads (queues with weights, guarantees and caps,
// priorities, time limits and reservations, SLAs, splits, refused Prepares
// that back jobs off, completions, reclaim and preemption) and must agree on
// every decision of every pass.
#include <gtest/gtest.h>

#include <random>

#include "tests/core/core_harness.hpp"

namespace gantry::hub::testing {
namespace {

constexpr TimeMs kSecond = 1000;

SchedulerOptions options_for(std::mt19937_64& rng, bool skip) {
  SchedulerOptions options;
  options.reservations = static_cast<std::uint32_t>(rng() % 3);
  options.reclaim = rng() % 4 != 0;
  options.preemption = rng() % 4 != 0;
  options.eviction_searches_per_pass = rng() % 2 ? 1 : 16;
  options.skip_failing_shapes = skip;
  options.walk_over_share_only = skip;
  return options;
}

std::string describe(const Decision& d) {
  return std::to_string(static_cast<int>(d.kind)) + ":" + std::to_string(d.job) + "/" +
         std::to_string(d.dispatch) + "@" + std::to_string(d.cluster);
}

// Both cores see the same calls; `rng_` draws the workload once for both.
class TwoCores {
 public:
  explicit TwoCores(std::uint64_t seed) : rng_(seed) {
    std::mt19937_64 options_rng(seed * 7919);
    skipping_ = std::make_unique<SchedulerCore>(options_for(options_rng, true));
    std::mt19937_64 same(seed * 7919);
    full_ = std::make_unique<SchedulerCore>(options_for(same, false));
  }

  // Runs `steps` rounds of changes and passes; returns the skipping core's
  // placement attempts over the full core's.
  std::pair<std::uint64_t, std::uint64_t> run(int steps) {
    for (int step = 0; step < steps && !::testing::Test::HasFailure(); ++step) {
      now_ += pick(0, 20) * kSecond;
      for (int n = pick(0, 4); n > 0; --n) submit();
      if (!running_.empty() && pick(0, 2) == 0) finish_one();
      pass(step);
    }
    for (JobId id = 0; id < full_->job_count(); ++id)
      EXPECT_EQ(skipping_->job(id).phase, full_->job(id).phase) << full_->job(id).name;
    return {skipping_->placement_attempts(), full_->placement_attempts()};
  }

 private:
  std::vector<SchedulerCore*> cores() { return {skipping_.get(), full_.get()}; }
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  void add_world() {
    for (SchedulerCore* core : cores()) {
      const ClusterIndex a = core->add_cluster("a");
      core->report_usage(a, nodes(3, 8, 64, "a"), {});
      core->set_cluster_ready(a, true);
      const ClusterIndex b = core->add_cluster("b");
      core->report_usage(b, nodes(2, 4, 64, "b"), {});
      core->set_cluster_ready(b, true);
    }
    for (int q = 0; q < 3; ++q) {
      QueueSpec spec;
      spec.name = "q" + std::to_string(q);
      spec.weight = pick(1, 3);
      if (pick(0, 3) == 0) spec.guarantee.set(kGpu, 8 * kMilli);
      if (pick(0, 3) == 0) spec.capability.set(kGpu, 16 * kMilli);
      if (pick(0, 5) == 0) spec.sla_waiting_ms = 60 * kSecond;
      for (SchedulerCore* core : cores()) core->apply_queue(spec);
    }
  }

  void submit() {
    static const std::int64_t sizes[] = {1, 1, 2, 4, 8, 8, 16};
    JobRequest request = gpu_job("j" + std::to_string(next_job_++), sizes[pick(0, 6)],
                                 "q" + std::to_string(pick(0, 2)));
    request.priority = pick(0, 3) == 0 ? 1 : 0;
    const int limit = pick(0, 2);
    request.time_limit_ms = limit == 0 ? 0 : (limit == 1 ? 30 : 300) * kSecond;
    request.split_allowed = pick(0, 5) == 0;
    request.may_preempt = pick(0, 7) != 0;
    for (SchedulerCore* core : cores()) core->submit(request, now_);
  }

  void finish_one() {
    const std::size_t index =
        static_cast<std::size_t>(pick(0, static_cast<int>(running_.size()) - 1));
    const DispatchId dispatch = running_[index];
    running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(index));
    const JobPhase phase = pick(0, 4) == 0 ? JobPhase::kFailed : JobPhase::kCompleted;
    for (SchedulerCore* core : cores())
      if (core->find_dispatch(dispatch) != nullptr) core->finished(dispatch, phase, "", now_);
  }

  void pass(int step) {
    const std::vector<Decision> skipped = skipping_->schedule(now_);
    const std::vector<Decision> full = full_->schedule(now_);
    ASSERT_EQ(skipped.size(), full.size()) << "step " << step;
    for (std::size_t i = 0; i < full.size(); ++i)
      ASSERT_EQ(describe(skipped[i]), describe(full[i])) << "step " << step << ", decision " << i;
    for (const Decision& d : full) {
      if (d.kind != Decision::Kind::kDispatch) continue;
      if (pick(0, 9) == 0) {  // the cluster refuses: the job is backed off there
        for (SchedulerCore* core : cores())
          core->part_rejected(d.dispatch, d.cluster, "full", now_);
        continue;
      }
      for (SchedulerCore* core : cores()) core->admitted(d.dispatch, now_);
      running_.push_back(d.dispatch);
    }
    std::erase_if(running_, [&](DispatchId id) { return full_->find_dispatch(id) == nullptr; });
  }

 public:
  void start() { add_world(); }

 private:
  std::mt19937_64 rng_;
  std::unique_ptr<SchedulerCore> skipping_;
  std::unique_ptr<SchedulerCore> full_;
  TimeMs now_ = 0;
  int next_job_ = 0;
  std::vector<DispatchId> running_;
};

TEST(IncrementalPassTest, SkippingClassesThatCannotStartDecidesAsAFullPass) {
  std::uint64_t skipping_attempts = 0;
  std::uint64_t full_attempts = 0;
  for (std::uint64_t seed = 1; seed <= 100 && !::testing::Test::HasFailure(); ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    TwoCores cores(seed);
    cores.start();
    const auto [skipping, full] = cores.run(200);
    skipping_attempts += skipping;
    full_attempts += full;
  }
  // The comparison means something only if whole classes were skipped.
  EXPECT_LT(skipping_attempts * 3, full_attempts * 2)
      << skipping_attempts << " attempts skipping, " << full_attempts << " visiting every job";
}

// One 8-GPU node; queues "a" and "b" deserve 4 GPUs each, and "b" runs gangs
// of 2 and 6. In "a": "first" (2 GPUs, never evicts) finds no room;
// "evictor" (4 GPUs) reclaims the 6-GPU gang and takes 4 of its GPUs; after
// "b" had its turn, "second" (first's shape) fits in the 2 left. The eviction
// voids what the pass knew to fail: a class found failing before it must be
// tried again after it.
std::vector<std::string> dispatched_after_an_eviction(bool skip) {
  SchedulerOptions options;
  options.reservations = 0;
  options.skip_failing_shapes = skip;
  SchedulerCore core(options);
  const ClusterIndex c = core.add_cluster("c");
  core.report_usage(c, nodes(1, 8, 64, "c"), {});
  core.set_cluster_ready(c, true);
  for (const char* name : {"a", "b"}) {
    QueueSpec spec;
    spec.name = name;
    core.apply_queue(spec);
  }
  std::vector<std::string> names;
  auto pass = [&](TimeMs now) {
    names.clear();
    for (const Decision& d : core.schedule(now)) {
      if (d.kind != Decision::Kind::kDispatch) continue;
      names.push_back(core.job(d.job).name);
      core.admitted(d.dispatch, now);
    }
  };
  core.submit(gpu_job("victim-2", 2, "b"), 0);
  core.submit(gpu_job("victim-6", 6, "b"), 0);
  pass(0);
  JobRequest first = gpu_job("first", 2, "a");
  first.may_preempt = false;
  core.submit(first, 1);
  core.submit(gpu_job("evictor", 4, "a"), 1);
  JobRequest second = first;
  second.name = "second";
  core.submit(second, 1);
  pass(2);
  return names;
}

TEST(IncrementalPassTest, AnEvictionMakesClassesKnownToFailWorthTryingAgain) {
  const std::vector<std::string> full = dispatched_after_an_eviction(false);
  EXPECT_EQ(full, (std::vector<std::string>{"evictor", "second"}));
  EXPECT_EQ(dispatched_after_an_eviction(true), full);
}

}  // namespace
}  // namespace gantry::hub::testing
