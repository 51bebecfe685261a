#include "sim/replay_config.hpp"

#include <stdexcept>
#include <string>

namespace gantry::sim {

std::optional<Mode> parse_mode(std::string_view text) {
  if (text == "isolated") return Mode::kIsolated;
  if (text == "pooled") return Mode::kPooled;
  return std::nullopt;
}

std::optional<Policy> parse_policy(std::string_view text) {
  if (text == "fifo") return Policy::kFifo;
  if (text == "firstfit") return Policy::kFirstFit;
  if (text == "fairshare") return Policy::kFairShare;
  if (text == "backfill") return Policy::kBackfill;
  return std::nullopt;
}

std::string_view mode_name(Mode mode) {
  return mode == Mode::kIsolated ? "isolated" : "pooled";
}

std::string_view policy_name(Policy policy) {
  switch (policy) {
    case Policy::kFifo:
      return "fifo";
    case Policy::kFirstFit:
      return "firstfit";
    case Policy::kFairShare:
      return "fairshare";
    case Policy::kBackfill:
      return "backfill";
  }
  return "?";
}

const hub::PlacementPolicy& placement_policy(const std::string& name) {
  const hub::PlacementPolicy* policy = hub::find_placement_policy(name);
  if (policy == nullptr)
    throw std::invalid_argument("--placement: expected one of " + hub::placement_policy_names() +
                                " (got \"" + name + "\")");
  return *policy;
}

std::uint32_t reservations_of(const ReplayConfig& config) {
  if (config.reservations) return *config.reservations;
  return config.policy == Policy::kBackfill ? 1 : 0;
}

hub::QueueStrategy queue_strategy(Policy policy) {
  return policy == Policy::kFifo ? hub::QueueStrategy::kStrictFifo
                                 : hub::QueueStrategy::kBestEffortFifo;
}

hub::SchedulerOptions scheduler_options(const ReplayConfig& config) {
  hub::SchedulerOptions options;
  options.default_strategy = queue_strategy(config.policy);
  options.reclaim = config.policy == Policy::kFairShare && config.reclaim;
  options.preemption = false;
  options.placement = placement_policy(config.placement);
  options.reservations = reservations_of(config);
  options.planned_runtimes = config.planned_runtimes;
  if (config.reclaim_spares_after_ms)
    options.reclaim_spares_after_ms = *config.reclaim_spares_after_ms;
  return options;
}

void check_replay_config(const ReplayConfig& config, std::size_t traces) {
  // Isolated mode already gives each trace its own queue and its own cluster:
  // there is nothing to share, so a fair-share run there would be a
  // mislabelled first-fit run.
  if (config.policy == Policy::kFairShare && config.mode != Mode::kPooled)
    throw std::invalid_argument(
        "--policy fairshare: needs --mode pooled (isolated clusters share nothing)");
  if (!config.weights.empty() && config.policy != Policy::kFairShare)
    throw std::invalid_argument("--weights: only for --policy fairshare");
  if (!config.reclaim && config.policy != Policy::kFairShare)
    throw std::invalid_argument("--no-reclaim: only for --policy fairshare");
  if (config.reclaim_spares_after_ms && config.policy != Policy::kFairShare)
    throw std::invalid_argument("--reclaim-spares-after: only for --policy fairshare");
  if (!config.weights.empty() && config.weights.size() != traces)
    throw std::invalid_argument("--weights: " + std::to_string(config.weights.size()) +
                                " values for " + std::to_string(traces) +
                                " clusters; give one per --clusters entry, in the same order");
  if (config.sla_ms < 0) throw std::invalid_argument("--sla: must not be negative");
  // An isolated job may use only its own trace's cluster: there is nothing to split across.
  if (config.split && config.mode != Mode::kPooled)
    throw std::invalid_argument(
        "--split: needs --mode pooled (an isolated job may use only its own cluster)");
  // Reservations order first-fit jobs: strict FIFO already starts nothing out of order.
  if (config.reservations && config.policy != Policy::kBackfill &&
      config.policy != Policy::kFairShare)
    throw std::invalid_argument("--reservations: only for --policy backfill or fairshare");
  if (config.planned_runtimes != hub::PlannedRuntimes::kLimits && !config.time_limit.any())
    throw std::invalid_argument(
        "--planned-runtimes: needs --time-limit (runtimes are learned against limits)");
  placement_policy(config.placement);
}

}  // namespace gantry::sim
