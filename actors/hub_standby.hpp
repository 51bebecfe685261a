// What a hub does while another holds the etcd store it waits for (issue 31):
// its admin socket answers every request "not_leader", naming the admin
// endpoint of the hub that holds the store, so gantryctl asks that one; its
// HTTP endpoint answers /healthz (alive) but not /readyz (503 "not leader"),
// so that a Kubernetes Service routes only to the leader, and /metrics says
// gantry_hub_leader 0. It binds no agents socket: an agent given several
// hubs finds nothing there and moves on to the next.
//
// Stopped (its sockets closed) before the hub, having claimed the store,
// binds its own on the same addresses. SIGINT or SIGTERM while it stands by
// (gantry-hub blocks them for sigwait, which it reaches only once it holds
// the store) ends the process at once: it holds nothing to put away.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>

#include "actors/hub.hpp"
#include "actors/io_bridge.hpp"
#include "protocol/messages.hpp"
#include "support/metrics_endpoint.hpp"

namespace gantry::actors {

class HubStandby final : private InboundHandler {
 public:
  // Binds --admin and --http-listen, each where it can (an address the
  // holder bound on this machine is left to it, with a warning).
  HubStandby(const HubOptions& options, BridgeSecurity security);
  ~HubStandby() override;
  HubStandby(const HubStandby&) = delete;
  HubStandby& operator=(const HubStandby&) = delete;

  // Who holds the store now. Thread-safe.
  void leader_is(const protocol::HubInfo& leader);

 private:
  void on_message(InboundMessage message) override;
  void on_undeliverable(const OutboundFrame&, std::string_view) override {}
  protocol::HubInfo leader() const;
  std::string not_leader_text() const;
  void stop_on_signal();

  mutable std::mutex mutex_;
  protocol::HubInfo leader_;
  std::unique_ptr<IoBridge> bridge_;  // none when --admin is bound already
  std::unique_ptr<support::MetricsEndpoint> http_;
  std::atomic<bool> stopping_{false};
  std::thread signals_;
};

}  // namespace gantry::actors
