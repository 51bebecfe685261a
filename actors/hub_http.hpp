// The hub's HTTP endpoint (support/metrics_endpoint.hpp, docs/metrics.md),
// answered by asking the scheduler actor, which owns what they report:
// /metrics its rendering (actors/hub_metrics.hpp) followed by the I/O
// thread's and store's (actors/hub_io_metrics.hpp), /healthz whether it
// answers within 5 s, /readyz whether it schedules.
#pragma once

#include <caf/fwd.hpp>
#include <filesystem>
#include <memory>
#include <string>

#include "actors/hub.hpp"
#include "actors/hub_io_metrics.hpp"
#include "support/metrics_endpoint.hpp"

namespace gantry::actors {

class HubHttp {
 public:
  // Binds the address and starts serving; throws std::runtime_error naming
  // what is wrong (the address, a certificate, the token file).
  HubHttp(const HubHttpOptions& options, const std::filesystem::path& state_dir, bool insecure,
          caf::actor_system& system, const caf::actor& scheduler,
          std::shared_ptr<const HubIoMetrics> io_metrics);
  ~HubHttp();  // stop()
  HubHttp(const HubHttp&) = delete;
  HubHttp& operator=(const HubHttp&) = delete;

  std::uint16_t port() const;
  // Before the actors stop: a request in flight is answered 503.
  void stop();

 private:
  std::unique_ptr<support::MetricsEndpoint> endpoint_;
};

}  // namespace gantry::actors
