// A fairness experiment on the scheduling core alone, without a trace: a few
// queues, each with more work than the pool holds, on one cluster of 8-GPU
// nodes, with a pass every `pass_interval_ms` of virtual time and the GPUs
// each queue holds sampled after every pass. The tests of the fair-share
// claims (weighted split, guarantees) and the figures in sim/README.md use it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hub/job.hpp"

namespace gantry::sim {

struct SaturationQueue {
  std::string name;
  std::int32_t weight = 1;
  std::int64_t guarantee_gpus = 0;  // 0: none
  // The guarantee is applied just before this pass; 0: the queue has it from
  // the start (later: an operator raises it while others use the pool).
  std::int32_t guarantee_pass = 0;
  bool reclaimable = true;
  std::int32_t jobs = 0;
  std::vector<std::int64_t> job_gpus{1};  // job sizes, cycled in submission order
  std::int32_t arrival_pass = 0;          // all its jobs are submitted just before this pass
};

struct SaturationSetup {
  std::int64_t nodes = 16;  // 8-GPU nodes in the one cluster
  std::vector<SaturationQueue> queues;
  std::int32_t passes = 100;
  hub::TimeMs pass_interval_ms = 60'000;
  // Run times are spread over [min, max] by a fixed formula (no randomness);
  // a minimum beyond passes x interval means no job ever finishes.
  hub::TimeMs min_duration_ms = 3'600'000;
  hub::TimeMs max_duration_ms = 7'200'000;
  bool reclaim = true;
};

struct SaturationRun {
  std::int64_t pool_gpus = 0;
  std::vector<std::vector<std::int64_t>> held;  // [pass][queue]: GPUs held after the pass
  std::vector<std::size_t> evictions;           // [pass]: running jobs evicted by the pass
  std::size_t withdrawn = 0;                    // dispatches evicted by the pass that made them
};

// Deterministic: the same setup gives the same run. Throws hub::FieldError
// when a queue spec is invalid.
SaturationRun run_saturation(const SaturationSetup& setup);

// The GPUs each queue would hold if the whole pool were split by weight.
std::vector<double> weighted_split(const SaturationSetup& setup);

// The first pass from which every queue, at every later pass, holds within
// `tolerance` x its target; nullopt when the split never settles there.
std::optional<std::size_t> settled_from(const SaturationRun& run,
                                        const std::vector<double>& targets, double tolerance);

}  // namespace gantry::sim
