// The queues a replay submits to: which exist, with what weight and strategy,
// and which one each trace's jobs go to.
#pragma once

#include <string>
#include <vector>

#include "hub/scheduler.hpp"
#include "sim/itp_trace.hpp"
#include "sim/replay_config.hpp"

namespace gantry::sim {

// Creates the queues of `config` for `traces`:
//  - isolated: one queue per trace (a shared strict-FIFO queue would let one
//    cluster's blocked head stall all others);
//  - pooled fifo / firstfit: the core's `default` queue only;
//  - pooled fairshare: one queue per trace, named after it, with its weight.
void add_replay_queues(hub::SchedulerCore& core, const std::vector<Trace>& traces,
                       const ReplayConfig& config);

// The queue trace `trace`'s jobs are submitted to.
const std::string& queue_for(const Trace& trace, const ReplayConfig& config);

// The core always has a `default` queue of weight 1, and an unset deserved
// share is split by weight among all siblings whether they have jobs or not.
// Where `default` gets no jobs, this gives it an explicit deserved of zero so
// the queues that do get jobs split the whole pool by their weights.
void exclude_default_queue_from_shares(hub::SchedulerCore& core);

}  // namespace gantry::sim
