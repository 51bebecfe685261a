// The hub's HTTP endpoint (support/metrics_endpoint.hpp, docs/metrics.md),
// answered by asking the scheduler actor, which owns what they report:
// /metrics its rendering (actors/hub_metrics.hpp) followed by the I/O
// thread's and store's (actors/hub_io_metrics.hpp), /healthz whether it
// answers within 5 s, /readyz whether it schedules, and the web view
// (actors/web_view.hpp) what gantryctl get and describe would.
#pragma once

#include <caf/fwd.hpp>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "actors/hub.hpp"
#include "actors/hub_io_metrics.hpp"
#include "actors/web_gate.hpp"
#include "actors/web_history.hpp"
#include "actors/web_view.hpp"
#include "support/metrics_endpoint.hpp"
#include "support/web_sessions.hpp"

namespace gantry::actors {

// Who may open the web view (actors/web_gate.hpp), as the hub knows it.
struct WebAccess {
  std::shared_ptr<support::WebSessions> sessions;
  std::function<std::shared_ptr<const AccessList>()> access;  // the one in force now
  std::shared_ptr<AuditLog> audit;                            // nullptr: none
};

class HubHttp {
 public:
  // Binds the address and starts serving; throws std::runtime_error naming
  // what is wrong (the address, a certificate, the token file). The web
  // view reads ended jobs through `open_history`'s reader.
  HubHttp(const HubHttpOptions& options, const std::filesystem::path& state_dir,
          HistoryOpener open_history, bool insecure, caf::actor_system& system,
          const caf::actor& scheduler, std::shared_ptr<const HubIoMetrics> io_metrics,
          WebAccess web_access);
  ~HubHttp();  // stop()
  HubHttp(const HubHttp&) = delete;
  HubHttp& operator=(const HubHttp&) = delete;

  std::uint16_t port() const;
  // "http(s)://HOST:PORT" as bound, a wildcard HOST replaced by `host`.
  std::string url(const std::string& host) const;
  // Before the actors stop: a request in flight is answered 503, the web
  // view's streams end.
  void stop();

 private:
  // Declared first, destroyed last: the endpoint's routes use them.
  std::unique_ptr<WebHistory> history_;
  std::unique_ptr<WebGate> gate_;  // after the view: its streams ask the gate
  std::unique_ptr<WebView> web_;
  std::string listen_;
  bool https_ = false;
  std::unique_ptr<support::MetricsEndpoint> endpoint_;
};

}  // namespace gantry::actors
