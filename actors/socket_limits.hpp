// Limits on what one peer may make a hub socket hold, and the libzmq options
// that enforce them inside libzmq before the hub sees (or buffers) anything.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <zmq.hpp>

namespace gantry::actors {

struct SocketLimits {
  // Frames above this are answered with an error (oversized_frame_error)
  // instead of being decoded; the connection stays. Frames above twice this
  // (drop_frame_bytes) never reach memory. --max-frame-bytes.
  std::int64_t max_frame_bytes = 16 * 1024 * 1024;
  // Open connections per socket; ConnectionGuard closes the newest above it.
  // --max-connections.
  int max_connections = 1024;
  // A connection with no complete message for this long is closed by
  // ConnectionGuard::expire_idle. Must exceed the agents' heartbeat interval
  // (an agent says something every heartbeat). --idle-timeout.
  std::chrono::milliseconds idle_timeout = std::chrono::minutes(10);
  // A connection that has not finished the ZMTP greeting and security
  // handshake by then is closed by libzmq (ZMQ_HANDSHAKE_IVL).
  std::chrono::milliseconds handshake_timeout = std::chrono::seconds(5);
  // ZMTP PINGs: a peer whose machine died (no FIN ever arrives) is closed
  // once nothing came back for heartbeat_timeout after a PING. libzmq
  // answers PINGs itself, so these never close a live but idle peer.
  std::chrono::milliseconds heartbeat_interval = std::chrono::seconds(15);
  std::chrono::milliseconds heartbeat_timeout = std::chrono::seconds(45);
  // Complete messages queued per connection before libzmq stops reading it
  // (ZMQ_RCVHWM; back-pressure, nothing is dropped). With drop_frame_bytes it
  // bounds what a socket can buffer: about max_connections x
  // receive_queue_messages x drop_frame_bytes in the worst case.
  int receive_queue_messages = 100;
  // Connections the kernel completes before libzmq accepts them
  // (ZMQ_BACKLOG, capped by net.core.somaxconn). libzmq's 100 fills in a
  // flood, and a client whose SYN finds it full waits 1 s, 3 s, 7 s... to retry.
  int listen_backlog = 1024;
};

// Frames above this are dropped inside libzmq: it reads the frame's size
// header, closes the connection and keeps no byte of the body
// (ZMQ_MAXMSGSIZE; it also bounds every CURVE handshake command). Twice
// max_frame_bytes, so that a frame a little too big is still answered with an
// error naming the limit rather than a silent disconnect.
std::int64_t drop_frame_bytes(const SocketLimits& limits);

// Sets the options above on a ROUTER (or any listening socket). Call it BEFORE
// bind(): libzmq copies a socket's options into its listener at bind time, so
// options set afterwards do not reach the connections that listener accepts.
void apply_socket_limits(zmq::socket_t& socket, const SocketLimits& limits);

// The error to answer a frame of `frame_bytes` with, or nullopt when it is
// within limits.max_frame_bytes. Check it before decoding the frame.
std::optional<std::string> oversized_frame_error(std::size_t frame_bytes,
                                                 const SocketLimits& limits);

}  // namespace gantry::actors
