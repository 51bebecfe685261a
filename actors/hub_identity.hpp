// Who this hub is to the others on its store and to their clients: its
// identity ("<host> <absolute state directory>", unique since the state
// directory is locked) and the endpoints it advertises, with a wildcard bind
// address ("*", 0.0.0.0, [::]) replaced by --advertise-host (default: the
// host name), so that a standby can say "try X" with an X that reaches it.
#pragma once

#include <string>

#include "actors/hub.hpp"
#include "protocol/messages.hpp"
#include "support/prometheus_text.hpp"

namespace gantry::actors {

std::string host_name();
std::string hub_identity(const HubOptions& options);
// `endpoint` ("tcp://HOST:PORT" or "HOST:PORT") with a wildcard HOST replaced.
std::string advertised_endpoint(const std::string& endpoint, const std::string& host);
// This hub as gantryctl get hubs shows it (role, store and generation unset).
protocol::HubInfo hub_self(const HubOptions& options, std::int64_t started_ms);
// gantry_hub_leader: 1 on the hub that holds the store, 0 on a standby.
void render_leader_gauge(support::PrometheusText& text, bool leader);

}  // namespace gantry::actors
