// Seeded random workloads through the scheduling core; after every pass the
// invariants of queue capacity management must hold.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "hub/scheduler.hpp"
#include "tests/core/core_fixtures.hpp"

namespace gantry::hub {
namespace {

using testing::gpus;
using testing::nodes;

const std::string kProducts[] = {"A100", "T4"};

class Workload {
 public:
  explicit Workload(std::uint64_t seed) : rng_(seed) {
    const int cluster_count = pick(2, 4);
    for (int c = 0; c < cluster_count; ++c) {
      // Two GPU products, so product-pinned jobs and product capabilities
      // are exercised next to plain GPU requests.
      const std::string product = kProducts[pick(0, 1)];
      const ClusterIndex index = core_.add_cluster("c" + std::to_string(c));
      core_.report_usage(index,
                         nodes(pick(2, 6), 8, 64, "c" + std::to_string(c),
                               {{std::string(kGpuProductLabel), product}}),
                         {});
      core_.set_cluster_ready(index, true);
    }
    const std::int64_t pool = core_.pool_capacity().gpus();
    std::int64_t guaranteed = 0;
    const int queue_count = pick(3, 5);
    for (int q = 0; q < queue_count; ++q) {
      QueueSpec spec;
      spec.name = "q" + std::to_string(q);
      spec.weight = pick(1, 4);
      spec.reclaimable = pick(0, 3) != 0;
      if (pick(0, 1) && guaranteed < pool / 2) {
        const std::int64_t g = pick(1, static_cast<int>(pool / 4));
        spec.guarantee.set(kGpu, g * kMilli);
        guaranteed += g;
      }
      if (pick(0, 2) == 0)
        spec.capability.set(kGpu, (spec.guarantee.value.gpus() + pick(4, 24)) * kMilli);
      ResourceId a100 = kNoResource;
      if (pick(0, 3) == 0 && gpu_product_resource(kProducts[0], a100))
        spec.capability.set(a100, pick(2, 16) * kMilli);
      core_.apply_queue(spec);
      queues_.push_back(spec.name);
    }
  }

  void step() {
    now_ += 1000;
    for (int i = pick(0, 3); i > 0; --i) submit();
    finish_some();
    for (const Decision& d : core_.schedule(now_)) {
      if (d.kind == Decision::Kind::kDispatch) {
        core_.admitted(d.dispatch, now_);
        running_.insert(d.dispatch);
      } else {
        running_.erase(d.dispatch);
        evicted_now_.push_back({d.job, d.dispatch});
        const JobId by = core_.job(d.job).reason.by_job;
        evictions_.insert({by, d.job});
      }
    }
  }

  void check_invariants() {
    for (ClusterIndex c = 0; c < core_.cluster_count(); ++c)
      for (NodeIndex n = 0; n < core_.cluster(c).node_count(); ++n)
        ASSERT_TRUE(ResourceVector{}.fits_in(core_.cluster(c).node(n).free))
            << "node over-committed";
    ASSERT_TRUE(core_.queues().node(kRootQueue).allocated.fits_in(core_.pool_capacity()));
    for (const std::string& name : queues_) check_queue(*core_.find_queue(name));
    for (DispatchId id : running_) {
      const Dispatch* dispatch = core_.find_dispatch(id);
      ASSERT_NE(dispatch, nullptr);
      std::int32_t placed = 0;
      for (const DispatchPart& part : dispatch->parts)
        for (std::int32_t n : part.task_replicas) placed += n;
      ASSERT_GE(placed, core_.job(dispatch->job).gang.min_available) << "partial gang";
    }
    // An evicted job is back in its queue, or already placed again elsewhere.
    for (const auto& [id, old_dispatch] : evicted_now_) {
      const Job& job = core_.job(id);
      ASSERT_TRUE(job.phase == JobPhase::kPending ||
                  (!is_terminal(job.phase) && job.dispatch != old_dispatch))
          << "evicted job lost";
    }
    evicted_now_.clear();
    for (const auto& [by, victim] : evictions_)
      ASSERT_FALSE(evictions_.count({victim, by})) << "eviction loop";
  }

  std::size_t evictions() const { return evictions_.size(); }

 private:
  int pick(int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng_); }

  void submit() {
    static constexpr std::int64_t kSizes[] = {1, 1, 1, 2, 4, 8, 16};
    JobRequest request;
    request.name = "j" + std::to_string(next_job_++);
    request.queue =
        queues_[static_cast<std::size_t>(pick(0, static_cast<int>(queues_.size()) - 1))];
    request.priority = pick(0, 4) == 0 ? 10 : 0;
    request.gang = make_gpu_gang(kSizes[pick(0, 6)], 8);
    if (pick(0, 2) == 0)
      for (TaskShape& task : request.gang.tasks)
        task.node_selector[std::string(kGpuProductLabel)] = kProducts[pick(0, 1)];
    core_.submit(std::move(request), now_);
  }

  void finish_some() {
    std::vector<DispatchId> done;
    for (DispatchId id : running_)
      if (pick(0, 9) < 2) done.push_back(id);
    for (DispatchId id : done) {
      core_.finished(id, JobPhase::kCompleted, "", now_);
      running_.erase(id);
    }
  }

  void check_queue(QueueIndex q) {
    const QueueNode& node = core_.queues().node(q);
    for (ResourceId r = 0; r < kMaxResources; ++r) {
      if (node.spec.capability.has(r)) {
        ASSERT_LE(node.allocated.get(r), node.spec.capability.value.get(r))
            << node.spec.name << " over capability of " << ResourceNames::name(r);
      }
    }
    // A pending 1-GPU job that fits in what is left of the queue's guarantee must have started:
    // a guarantee is never lent away, so its room is always there.
    const std::int64_t unused_guarantee = node.guarantee.get(kGpu) - node.allocated.get(kGpu);
    if (unused_guarantee < kMilli) return;
    // (A job pinned to a GPU product may wait: the guarantee is on GPUs of any product.)
    for (const PendingKey& key : node.pending_jobs) {
      if (!core_.job(key.job).gang.tasks[0].node_selector.empty()) continue;
      ASSERT_GT(core_.job(key.job).minimum().get(kGpu), kMilli)
          << node.spec.name << " has unused guarantee but its 1-GPU job " << core_.job(key.job).name
          << " waits: " << core_.reason_text(core_.job(key.job));
    }
  }

  std::mt19937_64 rng_;
  SchedulerCore core_;
  TimeMs now_ = 0;
  std::vector<std::string> queues_;
  std::set<DispatchId> running_;
  std::vector<std::pair<JobId, DispatchId>> evicted_now_;
  std::set<std::pair<JobId, JobId>> evictions_;
  int next_job_ = 0;
};

TEST(SchedulerProperties, InvariantsHoldAfterEveryPass) {
  std::size_t total_evictions = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Workload workload(seed);
    for (int step = 0; step < 150; ++step) {
      workload.step();
      workload.check_invariants();
      if (::testing::Test::HasFatalFailure()) return;
    }
    total_evictions += workload.evictions();
  }
  EXPECT_GT(total_evictions, 0u) << "the workloads must exercise reclaim or preemption";
}

}  // namespace
}  // namespace gantry::hub
