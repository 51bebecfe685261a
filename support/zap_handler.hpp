// The ZAP 1.0 wire format (RFC 27, https://rfc.zeromq.org/spec/27/), so that
// every CurveZMQ server in Gantry (the cluster role's node socket, the hub's
// sockets) decides who gets in with the same few lines.
//
// libzmq asks the socket bound to zap_endpoint *in the server socket's own
// zmq context* about each client that completed the CURVE handshake, and waits
// (asynchronously, in its I/O thread) for the answer: the owner of that REP
// socket must poll it and answer promptly, or clients hang in the handshake.
// Without any socket bound there, libzmq 4.3 accepts every client (see
// curve_socket.hpp). The user id of an accepted client is then readable on
// every message it sends: zmq::message_t::gets("User-Id").
#pragma once

#include <functional>
#include <string>
#include <zmq.hpp>

namespace gantry::support {

inline constexpr const char* zap_endpoint = "inproc://zeromq.zap.01";

// One request, as far as a decision needs it.
struct ZapRequest {
  std::string domain;   // the server socket's zap_domain ("gantry")
  std::string address;  // the client's IP address
  // NOT the client's routing id: libzmq 4.3.4 sends the *server* socket's own
  // routing id here (checked by the test). A key cannot be bound to a routing
  // id in ZAP; compare User-Id with the routing id on each message instead.
  std::string server_identity;
  std::string mechanism;         // "CURVE", "NULL", "PLAIN"
  std::string curve_public_key;  // Z85; empty unless mechanism is CURVE
};

struct ZapVerdict {
  bool allowed = false;
  std::string user_id;  // accepted: what messages carry as User-Id
  std::string reason;   // refused: the status text the client's monitor sees
};

// A REP socket bound to zap_endpoint in `context` (bind it before the server
// socket accepts connections). Throws zmq::error_t when another handler is
// already bound in that context.
zmq::socket_t bind_zap_handler(zmq::context_t& context);

// Receives one waiting request from `handler` (without blocking), replies 200
// or 400 as `decide` says (500 for a request that is not ZAP 1.0). Returns
// false when no request was waiting.
bool answer_one_zap_request(zmq::socket_t& handler,
                            const std::function<ZapVerdict(const ZapRequest&)>& decide);

}  // namespace gantry::support
