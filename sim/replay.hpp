// Replays job traces through hub::SchedulerCore in virtual time: submissions
// and completions are merged in time order, every event at one timestamp is
// applied, then the core schedules once. Deterministic: the same clusters,
// traces and config give the same outcomes.
#pragma once

#include <cstdint>
#include <vector>

#include "hub/job.hpp"
#include "sim/cluster_layout.hpp"
#include "sim/itp_trace.hpp"
#include "sim/replay_config.hpp"

namespace gantry::sim {

struct JobOutcome {
  std::uint32_t trace = 0;  // index of the trace (and of its own cluster)
  std::uint32_t row = 0;    // index of the job in its trace
  std::int64_t gpus = 0;
  hub::TimeMs submit_ms = 0;
  hub::TimeMs duration_ms = 0;
  hub::TimeMs limit_ms = 0;                     // its declared time limit (--time-limit); 0 = none
  bool ran = false;                             // false: it could never fit a cluster it may use
  hub::TimeMs start_ms = 0;                     // of its last run, when a policy evicted it
  hub::ClusterIndex cluster = hub::kNoCluster;  // where it ran (its first part, with --split)
  std::int32_t parts = 0;                       // clusters its last run spanned
  std::int32_t evictions = 0;                   // runs stopped by reclaim, each restarted later
  hub::TimeMs lost_ms = 0;                      // run time those stopped runs threw away

  hub::TimeMs wait_ms() const { return start_ms - submit_ms; }
  // The executor ends a run at its limit (never earlier than the trace's end
  // with --time-limit exact, xF or trace-random).
  bool ends_by_limit() const { return limit_ms > 0 && limit_ms < duration_ms; }
  hub::TimeMs end_ms() const { return start_ms + (ends_by_limit() ? limit_ms : duration_ms); }
};

struct ReplayResult {
  // One entry per trace job: trace 0's jobs in order, then trace 1's, ...
  std::vector<JobOutcome> jobs;
  std::size_t evictions = 0;  // running jobs a policy stopped and requeued
  // Dispatches the core evicted in the pass that made them: never started,
  // not counted as evictions (see pass_decisions.hpp).
  std::size_t withdrawn_dispatches = 0;
};

// `clusters[i]` is where trace `traces[i]` came from (the cluster a job is
// pinned to in isolated mode); both lists have the same length. Throws
// std::invalid_argument when they do not, or when check_replay_config does.
ReplayResult replay(const std::vector<SimCluster>& clusters, const std::vector<Trace>& traces,
                    const ReplayConfig& config);

}  // namespace gantry::sim
