// Who the hub lets in: its answer to libzmq's authentication request (ZAP)
// for each CurveZMQ handshake on the agents or admin socket. The client's
// public key must be in the access list and allowed on that socket; the
// answer names the key, and libzmq then stamps that name (the "User-Id") on
// every frame of the connection, which is how the hub knows who sent a frame.
#pragma once

#include <string_view>

#include "actors/access_list.hpp"
#include "support/zap_handler.hpp"

namespace gantry::actors {

// The ZAP domains the hub's sockets announce.
inline constexpr std::string_view kAgentsZapDomain = "gantry-agents";
inline constexpr std::string_view kAdminZapDomain = "gantry-admin";

support::ZapVerdict decide_zap(const support::ZapRequest& request, const AccessList& access);

}  // namespace gantry::actors
