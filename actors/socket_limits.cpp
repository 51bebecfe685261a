#include "actors/socket_limits.hpp"

#include <algorithm>
#include <limits>

namespace gantry::actors {

namespace {

int milliseconds_option(std::chrono::milliseconds value) {
  return static_cast<int>(std::clamp<std::chrono::milliseconds::rep>(value.count(), 0, 0x7fffffff));
}

}  // namespace

std::int64_t drop_frame_bytes(const SocketLimits& limits) {
  constexpr std::int64_t kLargest = std::numeric_limits<std::int64_t>::max() / 2;
  return limits.max_frame_bytes < 0 ? -1 : 2 * std::min(limits.max_frame_bytes, kLargest);
}

void apply_socket_limits(zmq::socket_t& socket, const SocketLimits& limits) {
  socket.set(zmq::sockopt::maxmsgsize, drop_frame_bytes(limits));
  socket.set(zmq::sockopt::handshake_ivl, milliseconds_option(limits.handshake_timeout));
  socket.set(zmq::sockopt::heartbeat_ivl, milliseconds_option(limits.heartbeat_interval));
  socket.set(zmq::sockopt::heartbeat_timeout, milliseconds_option(limits.heartbeat_timeout));
  socket.set(zmq::sockopt::rcvhwm, limits.receive_queue_messages);
  socket.set(zmq::sockopt::backlog, limits.listen_backlog);
}

std::optional<std::string> oversized_frame_error(std::size_t frame_bytes,
                                                 const SocketLimits& limits) {
  if (limits.max_frame_bytes < 0 ||
      frame_bytes <= static_cast<std::uint64_t>(limits.max_frame_bytes)) {
    return std::nullopt;
  }
  return "frame of " + std::to_string(frame_bytes) + " bytes exceeds the limit of " +
         std::to_string(limits.max_frame_bytes) + " bytes (--max-frame-bytes)";
}

}  // namespace gantry::actors
