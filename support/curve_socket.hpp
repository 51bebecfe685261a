// Turning a ZeroMQ socket into a CurveZMQ client or server.
//
// Call these before the socket connects or binds: libzmq applies security
// options to connections made afterwards only.
//
// About ZAP (RFC 27), as libzmq 4.3.4 behaves (checked by
// tests/support/curve_socket_test.cpp): a CURVE server always encrypts, and a
// client that does not know the server's public key cannot finish the
// handshake. Which *clients* get in is decided by a ZAP handler bound to
// inproc://zeromq.zap.01 in the server socket's zmq context. When no handler
// is bound there, libzmq accepts every client that completes the handshake
// (encryption without authentication, "Stonehouse"), even though
// make_curve_server sets zap_domain "gantry". So a server that must refuse
// unknown keys has to run a ZAP handler in its context before it binds.
#pragma once

#include <string>
#include <zmq.hpp>

#include "support/curve_keys.hpp"

namespace gantry::support {

struct CurveClientKeys {
  std::string server_public_key;  // Z85
  CurveKeyPair own;
};

// curve_serverkey, curve_publickey, curve_secretkey. Throws
// std::invalid_argument when a key is not Z85 (libzmq would only say EINVAL).
void make_curve_client(zmq::socket_t& socket, const CurveClientKeys& keys);

// curve_server=1, curve_secretkey, and zap_domain "gantry" (the domain a ZAP
// handler sees; see above for what happens without one).
void make_curve_server(zmq::socket_t& socket, const CurveKeyPair& own);

// The ZAP domain make_curve_server sets.
inline constexpr const char* curve_zap_domain = "gantry";

}  // namespace gantry::support
