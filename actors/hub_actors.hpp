// The hub's actors and how inbound frames reach them. Spawned together by
// spawn_hub_actors(); the I/O bridge (or a test) feeds them through an
// InboundRouter and they answer through an OutboundSink.
//
//   bridge -> router -> registry (agent sessions, leases) -> dispatcher -> scheduler
//                    -> queue (validation) -> store (SQLite) -> scheduler (the core)
//                    -> scheduler (list / describe / cancel / cordon / drain)
//   scheduler -> store (dispatch record) -> scheduler -> dispatcher (Prepare / Commit)
#pragma once

#include <caf/actor.hpp>
#include <caf/fwd.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actors/hub_io_metrics.hpp"
#include "actors/hub_settings.hpp"
#include "actors/inbound.hpp"
#include "actors/job_store.hpp"
#include "hub/job.hpp"

namespace gantry::actors {

using Clock = std::function<hub::TimeMs()>;
hub::TimeMs wall_clock_ms();

struct HubActorsConfig {
  OutboundSink* sink = nullptr;  // must outlive the actors
  Clock clock = wall_clock_ms;
  // The hub epoch told to agents in the Welcome.
  std::uint64_t hub_epoch = 0;
  // The heartbeat interval is also how often unanswered frames are sent again.
  HubSettings settings;
  // Jobs it holds without a terminal phase are re-submitted at spawn.
  std::shared_ptr<JobStore> store;
  // SQLite blocks: in production the store actor gets its own thread.
  bool detached_store = false;
  // Queue actors validating submissions side by side (YAML parsing is most of
  // a submission's cost); at least 1.
  std::size_t submission_validators = 2;
  // The store's commits are timed here (docs/metrics.md); nullptr: not.
  std::shared_ptr<HubIoMetrics> io_metrics;
  // This hub as gantryctl get hubs shows it (its generation is set here).
  protocol::HubInfo self;
};

struct HubActors {
  caf::actor scheduler;
  caf::actor dispatcher;
  caf::actor registry;
  // Queue actors: submissions go round-robin; queue changes and restored jobs
  // always to the first, so they keep their order.
  std::vector<caf::actor> queues;
  caf::actor store;
};

// Registers the message types the actors exchange; call on the config before
// the actor system is built.
void register_hub_message_types(caf::actor_system_config& config);

HubActors spawn_hub_actors(caf::actor_system& system, const HubActorsConfig& config);
void stop_hub_actors(const HubActors& actors);

class WebLoginDesk;

// Hands each decoded inbound message to the actor that handles it; gantryctl
// web to `web`, which answers on the spot (nullptr: a test's router, which
// drops them).
class InboundRouter final : public InboundHandler {
 public:
  explicit InboundRouter(HubActors actors, WebLoginDesk* web = nullptr)
      : actors_(std::move(actors)), web_(web) {}
  void on_message(InboundMessage message) override;
  void on_undeliverable(const OutboundFrame& frame, std::string_view why) override;

 private:
  HubActors actors_;
  WebLoginDesk* web_;
  std::size_t next_queue_ = 0;  // round-robin over actors_.queues for submissions
};

}  // namespace gantry::actors
