#include "sim/replay_config.hpp"

namespace gantry::sim {

std::optional<Mode> parse_mode(std::string_view text) {
  if (text == "isolated") return Mode::kIsolated;
  if (text == "pooled") return Mode::kPooled;
  return std::nullopt;
}

std::optional<Policy> parse_policy(std::string_view text) {
  if (text == "fifo") return Policy::kFifo;
  if (text == "firstfit") return Policy::kFirstFit;
  return std::nullopt;
}

std::string_view mode_name(Mode mode) {
  return mode == Mode::kIsolated ? "isolated" : "pooled";
}

std::string_view policy_name(Policy policy) {
  return policy == Policy::kFifo ? "fifo" : "firstfit";
}

hub::QueueStrategy queue_strategy(Policy policy) {
  return policy == Policy::kFifo ? hub::QueueStrategy::kStrictFifo
                                 : hub::QueueStrategy::kBestEffortFifo;
}

hub::SchedulerOptions scheduler_options(Policy policy) {
  hub::SchedulerOptions options;
  options.default_strategy = queue_strategy(policy);
  options.reclaim = false;
  options.preemption = false;
  return options;
}

}  // namespace gantry::sim
