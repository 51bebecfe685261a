// What the hub's actors run by. Filled once, from gantry-hub's command line
// (actors/hub_options.cpp) or by a test, and handed through whole: HubOptions
// holds it, HubActorsConfig holds it, and each actor takes the part it needs.
// A new setting is one field here (or in hub::SchedulerOptions) and one flag.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "hub/scheduler_options.hpp"

namespace gantry::actors {

// The hub's side of agent sessions (the registry actor).
struct AgentSessionSettings {
  // What agents are told in their Welcome: how often to beat, and how many
  // missed beats make the hub dead to them.
  std::chrono::milliseconds heartbeat_interval{1000};
  std::int32_t liveness = 3;
  // An agent silent this long: its cluster is not ready (its jobs stay).
  std::chrono::milliseconds agent_lease{30'000};
  // Silent this long (from its last frame): lost, its jobs are requeued.
  std::chrono::milliseconds lost_grace{120'000};
};

struct HubSettings {
  AgentSessionSettings agents;
  // After a restart with unfinished jobs, how long agents have to list what
  // they still run before those jobs are placed again; unset: one liveness
  // period (heartbeat_interval x liveness).
  std::optional<std::chrono::milliseconds> recovery_grace;
  // A Prepare or Commit unanswered this long counts as a Reject.
  std::chrono::milliseconds prepare_timeout{10'000};
  // An ended job stays listed (get jobs, describe job) this long at most,
  // across restarts, unless deleted or its ttl ends first (--keep-finished).
  std::chrono::milliseconds keep_finished{7LL * 24 * 3'600'000};
  // The scheduling core's policies, resolved (the placement policy by name,
  // the topology tiers' labels). Its first_dispatch_id is the store's to set.
  hub::SchedulerOptions scheduling;
};

}  // namespace gantry::actors
