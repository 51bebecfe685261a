// How a replay runs: which clusters a job may use, the queue policy, and the
// starvation guard every job gets.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hub/scheduler.hpp"
#include "sim/time_limits.hpp"

namespace gantry::sim {

enum class Mode {
  kIsolated,  // a job runs only in the cluster of its own trace file
  kPooled,    // every cluster is open to every job
};

enum class Policy {
  kFifo,       // strict FIFO: the head of a queue blocks it
  kFirstFit,   // skip what does not fit now
  kFairShare,  // pooled only: one weighted queue per trace, first-fit inside, reclaim
  kBackfill,   // first fit around a reservation for the first job that cannot start
};

// The hub's default placement policy (hub::PlacementPolicy::standard()).
inline constexpr const char* kDefaultPlacement = "binpack";

struct ReplayConfig {
  ReplayConfig() = default;
  // The common case, spelled ReplayConfig{mode, policy}; set the rest by name.
  ReplayConfig(Mode mode_in, Policy policy_in) : mode(mode_in), policy(policy_in) {}

  Mode mode = Mode::kIsolated;
  Policy policy = Policy::kFifo;
  // kFairShare: each trace queue's weight, in trace order; empty means 1 each.
  std::vector<std::int32_t> weights;
  // kFairShare: queues below their deserved share evict borrowers' jobs.
  bool reclaim = true;
  // kFairShare: reclaim spares runs older than this (0: none is spared);
  // unset: the hub's default (hub::SchedulerOptions::reclaim_spares_after_ms).
  std::optional<hub::TimeMs> reclaim_spares_after_ms;
  // Every job's SLA waiting time (hub::JobRequest::sla_waiting_ms); 0 = none.
  std::int64_t sla_ms = 0;
  // The core's placement policy for every queue (SchedulerOptions::placement),
  // by its registered name: binpack (the hub's default), spread, gpu-available.
  std::string placement = kDefaultPlacement;
  // Pooled only: every job may be split across clusters when no single one
  // fits it (hub::JobRequest::split_allowed).
  bool split = false;
  // What limit each job declares (--time-limit); backfill plans with them.
  TimeLimitModel time_limit;
  // Backfill reservations for the queue order (SchedulerOptions::reservations);
  // unset: 1 for kBackfill, 0 (plain first fit) for the others.
  std::optional<std::uint32_t> reservations;
  // What backfill plans take runs' ends to be (SchedulerOptions::planned_runtimes).
  hub::PlannedRuntimes planned_runtimes = hub::PlannedRuntimes::kLimits;
};

std::optional<Mode> parse_mode(std::string_view text);
std::optional<Policy> parse_policy(std::string_view text);
std::string_view mode_name(Mode mode);
std::string_view policy_name(Policy policy);

// The registered placement policy named `name`; throws std::invalid_argument
// naming --placement, the value and the choices when there is none.
const hub::PlacementPolicy& placement_policy(const std::string& name);

// The reservations the run uses: config.reservations or the policy's default.
std::uint32_t reservations_of(const ReplayConfig& config);
// The core's queue strategy that implements `policy`.
hub::QueueStrategy queue_strategy(Policy policy);
// Core options for `config`: only fair share with reclaim evicts running jobs
// (trace jobs all have priority 0, so in-queue preemption never applies).
// Throws std::invalid_argument as placement_policy() does.
hub::SchedulerOptions scheduler_options(const ReplayConfig& config);
// Throws std::invalid_argument when the fields do not make sense together
// (fair share in isolated mode, weights without fair share, split in isolated
// mode, an unknown placement policy, ...).
void check_replay_config(const ReplayConfig& config, std::size_t traces);

}  // namespace gantry::sim
