#include "actors/connection_guard.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace gantry::actors {

namespace {

// libzmq's version 1 monitor event: a frame of [uint16 event, uint32 value]
// (the value is the descriptor for ACCEPTED and DISCONNECTED), then a frame
// with the endpoint.
constexpr std::size_t kEventFrameBytes = sizeof(std::uint16_t) + sizeof(std::uint32_t);

// The socket object behind `fd` now, or 0 when `fd` holds no socket.
ino_t socket_inode(int fd) {
  struct stat status {};
  if (fstat(fd, &status) != 0 || !S_ISSOCK(status.st_mode)) return 0;
  return status.st_ino;
}

std::string suppressed_note(std::uint64_t left_out, std::string_view what) {
  if (left_out == 0) return {};
  return " (" + std::to_string(left_out) + " more " + std::string(what) +
         " since the last such message)";
}

std::string seconds_text(std::chrono::milliseconds duration) {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(duration).count()) + "s";
}

}  // namespace

ConnectionGuard::ConnectionGuard(zmq::context_t& context, zmq::socket_t& socket,
                                 std::string socket_name, const SocketLimits& limits)
    : socket_(socket),
      socket_name_(std::move(socket_name)),
      limits_(limits),
      monitor_(context, zmq::socket_type::pair) {
  const std::string endpoint = "inproc://gantry-connection-guard-" + socket_name_ + "-" +
                               std::to_string(reinterpret_cast<std::uintptr_t>(this));
  // No queue limit on the events: libzmq's I/O thread sends them with a
  // blocking send, so a full queue would stall every connection of the
  // context until this thread reads. An event is a few dozen bytes.
  monitor_.set(zmq::sockopt::rcvhwm, 0);
  monitor_.set(zmq::sockopt::linger, 0);
  if (zmq_socket_monitor(socket_.handle(), endpoint.c_str(),
                         ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED) != 0) {
    throw zmq::error_t();
  }
  try {
    monitor_.connect(endpoint);
  } catch (...) {
    (void)zmq_socket_monitor(socket_.handle(), nullptr, 0);
    throw;
  }
}

// The monitor must stop before its reader goes: libzmq would otherwise block
// its I/O thread on the next event, sent to a reader that is no more.
ConnectionGuard::~ConnectionGuard() {
  if (socket_.handle() != nullptr) (void)zmq_socket_monitor(socket_.handle(), nullptr, 0);
}

void ConnectionGuard::on_monitor_event(TimePoint now) {
  zmq::message_t event;
  zmq::message_t endpoint;
  looked_for_silent_closes_ = false;
  while (monitor_.recv(event, zmq::recv_flags::dontwait)) {
    // The endpoint frame is part of the same message, so it is here already.
    if (event.more()) (void)monitor_.recv(endpoint, zmq::recv_flags::none);
    if (event.size() < kEventFrameBytes) continue;
    std::uint16_t kind = 0;
    std::uint32_t value = 0;
    std::memcpy(&kind, event.data(), sizeof(kind));
    std::memcpy(&value, static_cast<const char*>(event.data()) + sizeof(kind), sizeof(value));
    const int fd = static_cast<int>(value);
    if (kind == ZMQ_EVENT_ACCEPTED) {
      on_accepted(fd, now);
    } else if (kind == ZMQ_EVENT_DISCONNECTED) {
      on_disconnected(fd);
    }
  }
}

// Events are read in the order libzmq emitted them, and a descriptor is reused
// only after its DISCONNECTED was emitted, so by descriptor the map follows
// the connections. When this thread lags a flood, `fd` may already hold a
// later connection to this socket by the time ACCEPTED is read; refusing that
// one instead is harmless (a ZeroMQ peer reconnects).
void ConnectionGuard::on_accepted(int fd, TimePoint now) {
  const ino_t inode = socket_inode(fd);
  if (inode == 0) return;  // gone already; its DISCONNECTED follows
  if (const auto earlier = connections_.find(fd); earlier != connections_.end()) {
    // The connection this descriptor held ended without an event.
    if (!earlier->second.closing) --admitted_;
    connections_.erase(earlier);
  }
  if (admitted_ >= limits_.max_connections && !looked_for_silent_closes_) {
    looked_for_silent_closes_ = true;
    forget_connections_closed_silently();
  }
  Connection& connection = connections_[fd];
  connection = Connection{inode, now, false};
  if (admitted_ < limits_.max_connections) {
    ++admitted_;
    return;
  }
  ++refused_;
  const auto left_out = refusal_log_.admit(now);
  const std::string peer = left_out ? peer_of(fd) : std::string();  // gone once shut down
  if (!close_connection(fd, connection)) {
    connections_.erase(fd);
    return;
  }
  if (left_out) {
    spdlog::warn(
        "{} socket: closed a new connection from {}: {} connections open, the limit "
        "(--max-connections) is {}{}",
        socket_name_, peer, admitted_, limits_.max_connections,
        suppressed_note(*left_out, "refused"));
  }
}

void ConnectionGuard::on_disconnected(int fd) {
  const auto found = connections_.find(fd);
  if (found == connections_.end()) return;  // refused before it was seen, or forgotten
  if (!found->second.closing) --admitted_;
  connections_.erase(found);
}

void ConnectionGuard::note_frame(const zmq::message_t& frame, TimePoint now) {
  // -1 for a transport without descriptors (inproc), and those are not guarded.
  note_activity(zmq_msg_get(frame.handle(), ZMQ_SRCFD), now);
}

void ConnectionGuard::note_activity(int fd, TimePoint now) {
  if (fd < 0) return;
  const auto found = connections_.find(fd);
  if (found == connections_.end() || found->second.closing) return;
  if (now > found->second.last_heard) found->second.last_heard = now;
}

int ConnectionGuard::expire_idle(TimePoint now) {
  if (now < next_sweep_) return 0;
  next_sweep_ = now + kSweepInterval;
  forget_connections_closed_silently();
  int closed = 0;
  for (auto& [fd, connection] : connections_) {
    if (connection.closing) continue;
    const auto silent_for =
        std::chrono::duration_cast<std::chrono::milliseconds>(now - connection.last_heard);
    if (silent_for <= limits_.idle_timeout) continue;
    const std::string peer = peer_of(fd);  // gone once shut down
    if (!close_connection(fd, connection)) continue;
    --admitted_;
    ++expired_;
    ++closed;
    if (const auto left_out = expiry_log_.admit(now)) {
      spdlog::info(
          "{} socket: closed the connection from {}: no message for {}, the limit "
          "(--idle-timeout) is {}{}",
          socket_name_, peer, seconds_text(silent_for), seconds_text(limits_.idle_timeout),
          suppressed_note(*left_out, "closed"));
    }
  }
  return closed;
}

std::chrono::milliseconds ConnectionGuard::poll_timeout(TimePoint now) const {
  if (now >= next_sweep_) return std::chrono::milliseconds(0);
  // Rounded up, so that the poll does not wake a moment before the sweep.
  return std::chrono::ceil<std::chrono::milliseconds>(next_sweep_ - now);
}

// Only shuts the connection down when `fd` still holds the socket accepted:
// the descriptor may already belong to a later connection or another file.
bool ConnectionGuard::close_connection(int fd, Connection& connection) {
  if (socket_inode(fd) != connection.socket_inode) return false;
  if (shutdown(fd, SHUT_RDWR) != 0) return false;
  connection.closing = true;
  return true;
}

void ConnectionGuard::forget_connections_closed_silently() {
  std::vector<int> gone;
  for (const auto& [fd, connection] : connections_) {
    if (socket_inode(fd) != connection.socket_inode) gone.push_back(fd);
  }
  for (const int fd : gone) on_disconnected(fd);
}

std::string ConnectionGuard::peer_of(int fd) const {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
    return "an unknown peer";
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    const auto& ipv4 = reinterpret_cast<const sockaddr_in&>(address);
    inet_ntop(AF_INET, &ipv4.sin_addr, text, sizeof(text));
    return std::string(text) + ":" + std::to_string(ntohs(ipv4.sin_port));
  }
  if (address.ss_family == AF_INET6) {
    const auto& ipv6 = reinterpret_cast<const sockaddr_in6&>(address);
    inet_ntop(AF_INET6, &ipv6.sin6_addr, text, sizeof(text));
    return "[" + std::string(text) + "]:" + std::to_string(ntohs(ipv6.sin6_port));
  }
  return "a local peer";
}

}  // namespace gantry::actors
