// The hub's answer to ZeroMQ's authentication requests (ZAP 1.0, RFC 27):
// libzmq asks, for each CurveZMQ handshake on the agents or admin socket,
// whether the client's public key may connect; the key must be in the
// access list and allowed on that socket. The answer names the key, and
// libzmq then stamps that name (the "User-Id") on every frame of the
// connection, which is how the hub knows who sent a frame.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "actors/access_list.hpp"

namespace gantry::actors {

// The ZAP domains the hub's sockets announce.
inline constexpr std::string_view kAgentsZapDomain = "gantry-agents";
inline constexpr std::string_view kAdminZapDomain = "gantry-admin";

struct ZapVerdict {
  std::vector<std::string> reply;  // the frames to send back
  bool allowed = false;
  std::string key_name;  // "" when the key is not listed
  std::string why;       // for the log when refused
};

// `request`: the frames of one ZAP request. A malformed request gets a 500.
ZapVerdict answer_zap(const std::vector<std::string>& request, const AccessList& access);

}  // namespace gantry::actors
