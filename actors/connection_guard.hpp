// Counts the TCP connections one hub socket holds and closes the ones over
// SocketLimits: the newest beyond max_connections, and those silent for longer
// than idle_timeout. libzmq has neither limit; what it offers is a socket
// monitor, whose ACCEPTED / DISCONNECTED events carry the connection's file
// descriptor. shutdown(fd, SHUT_RDWR) on that descriptor makes libzmq's own I/O
// thread see the end of the stream and close the connection the ordinary way
// (DISCONNECTED follows); the descriptor itself stays libzmq's to close.
//
// Everything runs on the thread that owns the socket; the time is passed in.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <zmq.hpp>

#include "actors/log_throttle.hpp"
#include "actors/socket_limits.hpp"

namespace gantry::actors {

class ConnectionGuard {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  // How often expire_idle looks at every connection (it returns at once when
  // called sooner): idle times are minutes, so a second late is nothing.
  static constexpr std::chrono::seconds kSweepInterval{1};

  // Starts monitoring `socket`, which lives in `context`; `socket_name`
  // ("agents", "admin") names it in the log. Construct it before the socket
  // accepts connections, and destroy it before the socket is closed.
  //
  // A refused connection should not get through its handshake: its client
  // would then send its first request into a connection about to close, and
  // lose it. With a context of one I/O thread (as IoBridge's) libzmq emits
  // ACCEPTED before the connection's ZAP request, so an I/O loop that calls
  // on_monitor_event before it answers ZAP shuts refused connections down
  // while their handshake still waits; their clients keep the request queued
  // and reconnect. (Without ZAP a handshake completes at once.)
  ConnectionGuard(zmq::context_t& context, zmq::socket_t& socket, std::string socket_name,
                  const SocketLimits& limits);
  ~ConnectionGuard();
  ConnectionGuard(const ConnectionGuard&) = delete;
  ConnectionGuard& operator=(const ConnectionGuard&) = delete;

  // Poll it for ZMQ_POLLIN beside the socket; call on_monitor_event when set.
  zmq::socket_t& monitor_socket() { return monitor_; }
  // Handles every pending monitor event: counts accepted and disconnected
  // connections and closes each accepted one that is over max_connections.
  void on_monitor_event(TimePoint now);

  // A complete message arrived on `frame`'s connection (any part of it: the
  // routing id or the payload, received from the guarded socket): it is not
  // idle. Uses the message's source descriptor (ZMQ_SRCFD).
  void note_frame(const zmq::message_t& frame, TimePoint now);
  void note_activity(int fd, TimePoint now);

  // Closes the connections with no message for longer than idle_timeout, and
  // forgets those whose descriptor no longer holds the socket accepted (libzmq
  // emits no DISCONNECTED when it terminates an engine rather than failing it;
  // a count that only grew would end in refusing everyone). A connection
  // displaced by ROUTER_HANDOVER is not closed by libzmq at all: it stays
  // open, pipe-less, until this expires it. Returns how many it closed. Call
  // it every poll_timeout.
  int expire_idle(TimePoint now);
  // How long the I/O thread's poll may wait before expire_idle is due.
  std::chrono::milliseconds poll_timeout(TimePoint now) const;

  // Connections open and within the limit (not those being closed).
  int connection_count() const { return admitted_; }
  std::uint64_t refused_count() const { return refused_; }
  std::uint64_t expired_count() const { return expired_; }

 private:
  struct Connection {
    ino_t socket_inode = 0;  // tells this connection from a later one on a reused fd
    TimePoint last_heard;
    bool closing = false;  // shut down by the guard; DISCONNECTED still to come
  };

  void on_accepted(int fd, TimePoint now);
  void on_disconnected(int fd);
  bool close_connection(int fd, Connection& connection);
  void forget_connections_closed_silently();
  std::string peer_of(int fd) const;

  zmq::socket_t& socket_;
  std::string socket_name_;
  SocketLimits limits_;
  zmq::socket_t monitor_;
  std::unordered_map<int, Connection> connections_;  // by file descriptor
  int admitted_ = 0;
  std::uint64_t refused_ = 0;
  std::uint64_t expired_ = 0;
  TimePoint next_sweep_{};
  // A flood of refusals looks for silently closed connections once per batch
  // of events, not once per refusal (each look costs a syscall per connection).
  bool looked_for_silent_closes_ = false;
  LogThrottle refusal_log_{std::chrono::seconds(10)};
  LogThrottle expiry_log_{std::chrono::seconds(10)};
};

}  // namespace gantry::actors
