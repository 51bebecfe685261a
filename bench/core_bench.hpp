// gantry-bench-core's workload: many clusters of 8-GPU nodes, many queues and
// a large backlog of gang jobs, driven through hub::SchedulerCore exactly as
// the hub drives it (submit, schedule, admitted, finished) in virtual time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bench/process_memory.hpp"
#include "hub/scheduler.hpp"

namespace gantry::bench {

struct CoreBenchOptions {
  std::uint32_t clusters = 100;
  std::uint32_t nodes = 1000;  // per cluster, 8 GPUs each
  std::uint32_t queues = 1000;
  std::uint32_t jobs = 1'000'000;  // pending when the first pass starts
  std::uint32_t events = 1000;     // steady-state events to measure
  double max_seconds = 120;        // ... or until this much time was spent scheduling
  std::uint64_t seed = 1;
  hub::QueueStrategy strategy = hub::QueueStrategy::kBestEffortFifo;
  bool evictions = true;              // the core's reclaim and preemption, as the hub runs it
  std::string placement = "binpack";  // the core's placement policy (the hub's default)
  bool split = false;                 // every job gantry.io/split: allowed
  bool skip_failing_shapes = true;    // SchedulerOptions::skip_failing_shapes
  std::optional<std::filesystem::path> trace_dir;  // draw sizes from the real traces
  bool help = false;
};

struct CoreBenchResult {
  double mean_job_gpus = 0;
  double submit_seconds = 0;
  std::int64_t memory_bytes = 0;  // resident growth while submitting the backlog
  std::size_t first_pass_decisions = 0;
  double first_pass_seconds = 0;
  // Resident growth over the first pass: what the core keeps per dispatch.
  std::int64_t first_pass_memory_bytes = 0;
  ProcessTimes first_pass_times;  // its CPU time, user and kernel, and page faults
  // Steady state: each event ends one job, submits one, then runs one pass.
  std::size_t events = 0;
  std::size_t decisions = 0;  // dispatches
  std::size_t evictions = 0;  // over both phases
  double schedule_seconds = 0;
  std::vector<double> pass_us;  // one per event
  // One per event: from the change (a job ends, one is submitted) to the
  // decisions it allows (the pass after them), in ms.
  std::vector<double> change_to_decision_ms;
  // Gang decisions: one per pending job a pass looks at (core's placement_attempts).
  std::uint64_t attempts = 0;
  // Per pass: pass time / decisions in it. The core reads no clock, so single
  // decisions are not timed one by one; this is their mean within each pass.
  std::vector<double> decision_us;
};

// Throws std::invalid_argument naming the flag and value.
CoreBenchOptions parse_core_bench_options(const std::vector<std::string>& args);
std::string core_bench_usage();

CoreBenchResult run_core_bench(const CoreBenchOptions& options);

}  // namespace gantry::bench
