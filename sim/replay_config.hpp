// How a replay runs: which clusters a job may use and the queue policy.
#pragma once

#include <optional>
#include <string_view>

#include "hub/scheduler.hpp"

namespace gantry::sim {

enum class Mode {
  kIsolated,  // a job runs only in the cluster of its own trace file
  kPooled,    // one global queue, any cluster
};

enum class Policy {
  kFifo,      // strict FIFO: the head of a queue blocks it
  kFirstFit,  // skip what does not fit now
};

struct ReplayConfig {
  Mode mode = Mode::kIsolated;
  Policy policy = Policy::kFifo;
};

std::optional<Mode> parse_mode(std::string_view text);
std::optional<Policy> parse_policy(std::string_view text);
std::string_view mode_name(Mode mode);
std::string_view policy_name(Policy policy);

// The core's queue strategy that implements `policy`.
hub::QueueStrategy queue_strategy(Policy policy);
// Core options for `policy`: fifo and firstfit never evict running jobs.
hub::SchedulerOptions scheduler_options(Policy policy);

}  // namespace gantry::sim
