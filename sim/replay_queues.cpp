#include "sim/replay_queues.hpp"

namespace gantry::sim {
namespace {

const std::string kDefaultQueue = "default";

void add_fair_share_queues(hub::SchedulerCore& core, const std::vector<Trace>& traces,
                           const ReplayConfig& config) {
  exclude_default_queue_from_shares(core);
  for (std::size_t t = 0; t < traces.size(); ++t) {
    hub::QueueSpec spec;
    spec.name = traces[t].cluster_name;
    spec.weight = config.weights.empty() ? 1 : config.weights[t];
    spec.strategy = queue_strategy(config.policy);
    core.apply_queue(spec);
  }
}

}  // namespace

void add_replay_queues(hub::SchedulerCore& core, const std::vector<Trace>& traces,
                       const ReplayConfig& config) {
  if (config.policy == Policy::kFairShare) {
    add_fair_share_queues(core, traces, config);
  } else if (config.mode == Mode::kPooled) {
    core.set_queue_strategy(*core.find_queue(kDefaultQueue), queue_strategy(config.policy));
  } else {
    for (const Trace& trace : traces)
      core.set_queue_strategy(core.ensure_queue(trace.cluster_name), queue_strategy(config.policy));
  }
}

const std::string& queue_for(const Trace& trace, const ReplayConfig& config) {
  if (config.mode == Mode::kPooled && config.policy != Policy::kFairShare) return kDefaultQueue;
  return trace.cluster_name;
}

void exclude_default_queue_from_shares(hub::SchedulerCore& core) {
  hub::QueueSpec spec = core.queues().node(*core.find_queue(kDefaultQueue)).spec;
  for (hub::ResourceId r = 0; r < hub::kMaxResources; ++r) spec.deserved.set(r, 0);
  core.apply_queue(spec);
}

}  // namespace gantry::sim
