// gantry-hub --karmada / --webhook-listen: the Karmada gateway and the
// admission webhook, started beside a running hub (docs/karmada.md). Kept out
// of the actors library: only the gantry-hub program links Karmada's I/O.
#pragma once

#include <chrono>
#include <memory>
#include <optional>

#include "actors/hub.hpp"
#include "actors/hub_options.hpp"
#include "support/curve_socket.hpp"

namespace gantry::actors {

class KarmadaMode {
 public:
  // Throws std::runtime_error naming the flag when the kubeconfig, the
  // certificate or the listen address cannot be used. `hub_keys`: how the
  // gateway's DEALERs reach the hub's CurveZMQ sockets (the hub's public key
  // and a keypair the hub allows: its own); nullopt for a plaintext hub.
  KarmadaMode(const KarmadaOptions& options, const Hub& hub,
              std::chrono::milliseconds heartbeat_interval,
              std::optional<support::CurveClientKeys> hub_keys = std::nullopt);
  ~KarmadaMode();
  KarmadaMode(const KarmadaMode&) = delete;
  KarmadaMode& operator=(const KarmadaMode&) = delete;
  void stop();

 private:
  struct Running;
  std::unique_ptr<Running> running_;
};

}  // namespace gantry::actors
