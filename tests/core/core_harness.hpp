// One harness for the scheduling-core tests: a SchedulerCore driven pass by
// pass with a paused clock (`now`), and the verbs those tests are written in.
// A test fixture derives from it and adds only what its area needs.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "hub/scheduler.hpp"
#include "tests/core/core_fixtures.hpp"

namespace gantry::hub::testing {

// A gang of `gpu_count` GPUs as 8-GPU replicas (or one smaller replica).
inline JobRequest gpu_job(std::string name, std::int64_t gpu_count, std::string queue = "default") {
  JobRequest request;
  request.name = std::move(name);
  request.queue = std::move(queue);
  request.gang = make_gpu_gang(gpu_count, 8);
  return request;
}

// Job names of one pass's decisions, each list in decision order.
struct PassNames {
  std::vector<std::string> dispatched;
  std::vector<std::string> evicted;
};

class CoreHarness : public ::testing::Test {
 protected:
  explicit CoreHarness(SchedulerOptions options = {}) : core(std::move(options)) {}

  // ---- clusters: each reports its nodes once and is ready from `now`.
  ClusterIndex add_cluster(const std::string& name, const std::vector<NodeSpec>& specs) {
    const ClusterIndex c = core.add_cluster(name);
    core.report_usage(c, specs, {});
    core.set_cluster_ready(c, true);
    return c;
  }
  // `node_count` nodes named name-0.. with `gpu_per_node` GPUs and 64 cores each.
  ClusterIndex add_cluster(const std::string& name, int node_count, std::int64_t gpu_per_node) {
    return add_cluster(name, nodes(node_count, gpu_per_node, 64, name));
  }

  // ---- queues and jobs
  QueueIndex apply_queue(const QueueSpec& spec) { return core.apply_queue(spec); }
  JobId submit(JobRequest request) { return core.submit(std::move(request), now); }

  // ---- passes at `now`
  // Names every job the pass decided on, dispatched or evicted; admits none.
  std::vector<std::string> scheduled_names() {
    std::vector<std::string> names;
    for (const Decision& d : core.schedule(now)) names.push_back(core.job(d.job).name);
    return names;
  }
  // Every dispatched job is admitted at once, as by an agent with room for it.
  PassNames pass() {
    PassNames out;
    for (const Decision& d : core.schedule(now)) {
      const bool dispatch = d.kind == Decision::Kind::kDispatch;
      (dispatch ? out.dispatched : out.evicted).push_back(core.job(d.job).name);
      if (dispatch) core.admitted(d.dispatch, now);
    }
    return out;
  }

  // ---- the agent's answers for a job's current dispatch, at `now`
  void admit(const std::string& job_name) { core.admitted(job(job_name).dispatch, now); }
  void finish(const std::string& job_name, JobPhase phase = JobPhase::kCompleted) {
    core.finished(job(job_name).dispatch, phase, "", now);
  }

  // ---- lookups by name
  const Job& job(const std::string& name) const { return core.job(*core.find_job(name)); }
  const QueueNode& queue(const std::string& name) const {
    return core.queues().node(*core.find_queue(name));
  }
  std::int64_t allocated_gpus(const std::string& queue_name) const {
    return queue(queue_name).allocated.gpus();
  }

  SchedulerCore core;
  TimeMs now = 1'000;
};

}  // namespace gantry::hub::testing
