// The hub's HTTP endpoint (docs/metrics.md), answered by asking the scheduler
// actor, which owns what they report:
//   GET /metrics  Prometheus text; needs "Authorization: Bearer TOKEN" unless --insecure
//   GET /healthz  200 "ok" while the scheduler actor answers
//   GET /readyz   200 "ok" when the hub schedules, else 503 and why not
#pragma once

#include <caf/fwd.hpp>
#include <filesystem>
#include <memory>
#include <string>

#include "actors/hub.hpp"

namespace gantry::actors {

// Reads the scrape token (surrounding whitespace trimmed), or generates one
// (mode 0600) when the file does not exist. Throws std::runtime_error naming
// the file when it is empty or too long.
std::string load_or_generate_token(const std::filesystem::path& file);

class HubHttp {
 public:
  // Binds the address and starts serving; throws std::runtime_error naming
  // what is wrong (the address, a certificate, the token file).
  HubHttp(const HubHttpOptions& options, const std::filesystem::path& state_dir, bool insecure,
          caf::actor_system& system, const caf::actor& scheduler);
  ~HubHttp();  // stop()
  HubHttp(const HubHttp&) = delete;
  HubHttp& operator=(const HubHttp&) = delete;

  std::uint16_t port() const;
  // Before the actors stop: a request in flight is answered 503.
  void stop();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gantry::actors
