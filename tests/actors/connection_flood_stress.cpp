// A stress check run by hand, not in CI (it opens thousands of connections):
// a ROUTER guarded as the hub's are, flooded with idle connections, a 100 MB
// frame and an endless multi-part message, printing this process's resident
// memory after each step. Server and clients share the process; the clients
// are raw TCP sockets whose buffers live in the kernel, so the figures are the
// server's.
//   cmake --build build --target connection-flood-stress
//   build/bin/connection-flood-stress [connections (5000)] [only this step]
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "actors/connection_guard.hpp"
#include "actors/fd_limit.hpp"
#include "actors/memory_release.hpp"
#include "actors/socket_limits.hpp"
#include "bench/process_memory.hpp"
#include "raw_zmtp_client.hpp"

namespace {

using namespace std::chrono_literals;
using gantry::actors::ConnectionGuard;
using gantry::actors::SocketLimits;
using gantry::actors::testing::RawZmtpClient;

double resident_mib() {
  return static_cast<double>(gantry::bench::resident_bytes()) / (1024.0 * 1024.0);
}

// Answers a ZAP request with 200 (the hub's handler checks keys instead).
void allow_zap_request(zmq::socket_t& zap) {
  std::vector<zmq::message_t> request;
  do {
    request.emplace_back();
    (void)zap.recv(request.back());
  } while (request.back().more());
  const std::vector<std::string> reply{
      "1.0", request.size() > 1 ? request[1].to_string() : "", "200", "OK", "", ""};
  for (std::size_t i = 0; i < reply.size(); ++i) {
    (void)zap.send(zmq::buffer(reply[i]),
                   i + 1 < reply.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
  }
}

// The I/O loop the hub's bridge is meant to run: the guard's monitor, then
// ZAP, then the ROUTER, polled together; every message noted, too-big frames
// answered, idle connections swept. Echoes everything else.
class GuardedEchoServer {
 public:
  explicit GuardedEchoServer(const SocketLimits& limits) : limits_(limits) {
    router_.set(zmq::sockopt::linger, 0);
    zap_.set(zmq::sockopt::linger, 0);
    zap_.bind("inproc://zeromq.zap.01");
    router_.set(zmq::sockopt::zap_domain, "stress");
    gantry::actors::apply_socket_limits(router_, limits);
    guard_ = std::make_unique<ConnectionGuard>(context_, router_, "stress", limits);
    router_.bind("tcp://127.0.0.1:*");
    endpoint_ = router_.get(zmq::sockopt::last_endpoint);
    thread_ = std::thread([this] { run(); });
  }
  ~GuardedEchoServer() {
    stopping_ = true;
    thread_.join();
    guard_.reset();
  }
  const std::string& endpoint() const { return endpoint_; }
  int port() const { return std::stoi(endpoint_.substr(endpoint_.rfind(':') + 1)); }
  int connections() const { return connections_; }
  std::uint64_t refused() const { return refused_; }
  std::uint64_t answered_too_big() const { return answered_too_big_; }
  int releases() const { return releases_; }

 private:
  void run() {
    std::vector<zmq::pollitem_t> items{{router_.handle(), 0, ZMQ_POLLIN, 0},
                                       {guard_->monitor_socket().handle(), 0, ZMQ_POLLIN, 0},
                                       {zap_.handle(), 0, ZMQ_POLLIN, 0}};
    while (!stopping_) {
      auto now = std::chrono::steady_clock::now();
      (void)zmq::poll(items, std::min<std::chrono::milliseconds>(guard_->poll_timeout(now), 50ms));
      now = std::chrono::steady_clock::now();
      if (items[1].revents & ZMQ_POLLIN) guard_->on_monitor_event(now);
      if (items[2].revents & ZMQ_POLLIN) {
        while (zap_.get(zmq::sockopt::events) & ZMQ_POLLIN) allow_zap_request(zap_);
      }
      if (items[0].revents & ZMQ_POLLIN) receive_available(now);
      (void)guard_->expire_idle(now);
      connections_ = guard_->connection_count();
      refused_ = guard_->refused_count();
      if (release_.on_sweep(connections_, now)) ++releases_;
    }
  }
  void receive_available(ConnectionGuard::TimePoint now) {
    for (int i = 0; i < 256; ++i) {
      zmq::message_t routing_id;
      if (!router_.recv(routing_id, zmq::recv_flags::dontwait)) return;
      zmq::message_t payload;
      while (router_.get(zmq::sockopt::rcvmore)) (void)router_.recv(payload);
      guard_->note_frame(payload, now);
      std::string reply = payload.to_string();
      if (auto error = gantry::actors::oversized_frame_error(payload.size(), limits_)) {
        reply = *error;
        ++answered_too_big_;
      }
      (void)router_.send(routing_id, zmq::send_flags::sndmore | zmq::send_flags::dontwait);
      (void)router_.send(zmq::buffer(reply), zmq::send_flags::dontwait);
    }
  }

  SocketLimits limits_;
  zmq::context_t context_{1};  // one libzmq I/O thread: ACCEPTED comes before ZAP
  zmq::socket_t zap_{context_, zmq::socket_type::rep};
  zmq::socket_t router_{context_, zmq::socket_type::router};
  std::unique_ptr<ConnectionGuard> guard_;
  std::string endpoint_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> connections_{0};
  std::atomic<std::uint64_t> refused_{0};
  std::atomic<std::uint64_t> answered_too_big_{0};
  gantry::actors::FreedMemoryRelease release_{256, 2s};
  std::atomic<int> releases_{0};
};

// Polls `condition` (a few times a second) until it holds or 120 s pass.
bool wait_for(const std::function<bool()>& condition) {
  const auto end = std::chrono::steady_clock::now() + 120s;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

// A libzmq client's round trip: seconds until answered, or -1 (none in 15 s:
// more than the handshake timeout that frees slots held by silent sockets).
double served_after(zmq::context_t& context, const std::string& endpoint,
                    const std::string& payload = "ping") {
  const auto start = std::chrono::steady_clock::now();
  zmq::socket_t dealer(context, zmq::socket_type::dealer);
  dealer.set(zmq::sockopt::linger, 0);
  dealer.connect(endpoint);
  (void)dealer.send(zmq::buffer(payload), zmq::send_flags::none);
  std::vector<zmq::pollitem_t> items{{dealer.handle(), 0, ZMQ_POLLIN, 0}};
  if (zmq::poll(items, 15s) == 0) return -1;
  zmq::message_t reply;
  (void)dealer.recv(reply);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void report(const char* step, double before_mib) {
  std::printf("  %-58s RSS %8.1f MiB (%+8.1f)\n", step, resident_mib(),
              resident_mib() - before_mib);
  std::fflush(stdout);
}

void idle_flood(int count, bool handshake, const SocketLimits& limits) {
  std::printf("\n%d idle connections, %s, --max-connections %d:\n", count,
              handshake ? "ZMTP handshake done (NULL security)" : "raw TCP, nothing sent",
              limits.max_connections);
  const double before = resident_mib();
  {
    GuardedEchoServer server(limits);
    zmq::context_t client_context;
    report("server started", before);
    std::vector<RawZmtpClient> clients;
    clients.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
      clients.emplace_back(server.port());
      if (handshake) (void)clients.back().send_handshake();
    }
    const int expected = std::min(count, limits.max_connections);
    wait_for([&] {
      return server.connections() == expected &&
             server.refused() >= static_cast<std::uint64_t>(count - expected);
    });
    std::printf("  open %d, refused %llu\n", server.connections(),
                static_cast<unsigned long long>(server.refused()));
    report("all connections made", before);
    std::printf("  a new libzmq client answered after %.2f s\n",
                served_after(client_context, server.endpoint()));
    report("after the new client", before);
    const int releases = server.releases();
    clients.clear();
    wait_for([&] { return server.connections() <= 1; });
    report("clients closed", before);
    wait_for([&] { return !handshake || server.releases() > releases; });
    report("clients closed, server's FreedMemoryRelease done", before);
  }
  report("server gone", before);
}

// The same server flooded again and again: what stays resident after each
// round must not grow with the rounds.
void repeated_floods(int count, int rounds) {
  SocketLimits limits;
  limits.max_connections = count + 100;
  std::printf("\n%d rounds of %d handshaken connections opened and closed, one server:\n", rounds,
              count);
  const double before = resident_mib();
  GuardedEchoServer server(limits);
  for (int round = 1; round <= rounds; ++round) {
    {
      std::vector<RawZmtpClient> clients;
      clients.reserve(static_cast<std::size_t>(count));
      for (int i = 0; i < count; ++i) {
        clients.emplace_back(server.port());
        (void)clients.back().send_handshake();
      }
      wait_for([&] { return server.connections() == count; });
      report(("round " + std::to_string(round) + ": all open").c_str(), before);
    }
    const int releases = server.releases();
    wait_for([&] { return server.connections() == 0; });
    report(("round " + std::to_string(round) + ": all closed").c_str(), before);
    wait_for([&] { return server.releases() > releases; });
    report(("round " + std::to_string(round) + ": FreedMemoryRelease done").c_str(), before);
  }
}

void big_frame(std::uint64_t bytes) {
  std::printf("\na %llu-byte frame (header and body streamed) on a handshaken connection:\n",
              static_cast<unsigned long long>(bytes));
  const double before = resident_mib();
  SocketLimits limits;
  GuardedEchoServer server(limits);
  zmq::context_t client_context;
  report("server started", before);
  RawZmtpClient hostile(server.port());
  (void)hostile.send_handshake();
  (void)hostile.send_frame_header(bytes);
  const std::string chunk(1 << 20, 'x');
  std::uint64_t sent = 0;
  while (sent < bytes && hostile.send_bytes(chunk)) sent += chunk.size();
  std::printf("  body bytes accepted by the kernel before the server closed: %llu\n",
              static_cast<unsigned long long>(sent));
  std::printf("  closed by the server: %s\n", hostile.wait_closed_by_server(120s) ? "yes" : "NO");
  report("after the frame", before);
  std::printf("  a new libzmq client answered after %.2f s\n",
              served_after(client_context, server.endpoint()));
}

void frame_between_limits() {
  SocketLimits limits;
  std::printf("\na %lld-byte frame (over --max-frame-bytes, under the drop size) from libzmq:\n",
              static_cast<long long>(limits.max_frame_bytes + 1));
  const double before = resident_mib();
  {
    GuardedEchoServer server(limits);
    zmq::context_t client_context;
    const std::string payload(static_cast<std::size_t>(limits.max_frame_bytes + 1), 'x');
    std::printf("  answered with an error after %.2f s (errors answered: ",
                served_after(client_context, server.endpoint(), payload));
    std::printf("%llu)\n", static_cast<unsigned long long>(server.answered_too_big()));
    report("after the answer", before);
  }
  report("server gone", before);
}

void endless_multipart(int parts) {
  std::printf("\nan unfinished multi-part message of %d x 1 MiB parts (each under the limits):\n",
              parts);
  const double before = resident_mib();
  {
    SocketLimits limits;
    GuardedEchoServer server(limits);
    report("server started", before);
    RawZmtpClient hostile(server.port());
    (void)hostile.send_handshake();
    std::string part(9, '\0');
    part[0] = '\x03';  // more parts follow, 8-byte size
    const std::uint64_t size = 1 << 20;
    for (int i = 0; i < 8; ++i) part[8 - i] = static_cast<char>((size >> (8 * i)) & 0xff);
    part += std::string(size, 'x');
    int sent = 0;
    while (sent < parts && hostile.send_bytes(part)) ++sent;
    std::printf("  parts the kernel accepted: %d; closed by the server: %s\n", sent,
                hostile.closed_by_server() ? "yes" : "no");
    report("parts sent, message never finished", before);
  }
  report("connection and server gone", before);
}

}  // namespace

int main(int argc, char** argv) {
  const int connections = argc > 1 ? std::stoi(argv[1]) : 5000;
  spdlog::set_level(spdlog::level::warn);
  gantry::actors::keep_large_buffers_out_of_the_heap();  // as the hub at start
  const auto fd_limit = gantry::actors::raise_fd_limit();
  std::printf("fd limit %llu (hard %llu); RSS at start %.1f MiB\n",
              static_cast<unsigned long long>(fd_limit.soft),
              static_cast<unsigned long long>(fd_limit.hard), resident_mib());

  SocketLimits defaults;
  SocketLimits room_for_all = defaults;
  room_for_all.max_connections = connections + 100;
  const std::string only = argc > 2 ? argv[2] : "";
  const auto wanted = [&](const char* step) { return only.empty() || only == step; };
  if (wanted("raw")) idle_flood(connections, false, defaults);
  if (wanted("handshaken")) idle_flood(connections, true, defaults);
  if (wanted("all-admitted")) idle_flood(connections, true, room_for_all);
  if (wanted("repeated")) repeated_floods(connections, 3);
  if (wanted("frame")) big_frame(100'000'000);
  if (wanted("between")) frame_between_limits();
  if (wanted("multipart")) endless_multipart(200);
  std::printf("\nRSS at the end %.1f MiB\n", resident_mib());
}
