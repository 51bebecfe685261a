// The one thread that owns the hub's ZeroMQ sockets: a ROUTER for agents, a
// ROUTER for gantryctl, an inproc PAIR that wakes it when actors queue
// frames, and the ZAP socket that answers libzmq's authentication requests.
// Both ROUTERs are CurveZMQ servers unless the hub runs --insecure: a
// client's key must be in the access list, and every frame carries the key's
// name. Inbound frames are decoded and authorised here (the key still
// listed, the cluster its own, the role enough) and handed to an
// InboundHandler; others are answered with an ErrorReply on the spot.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "actors/access_list.hpp"
#include "actors/audit_log.hpp"
#include "actors/connection_guard.hpp"
#include "actors/hub_io_metrics.hpp"
#include "actors/inbound.hpp"
#include "actors/log_throttle.hpp"
#include "actors/memory_release.hpp"
#include "actors/outbound.hpp"
#include "actors/socket_limits.hpp"
#include "support/curve_keys.hpp"

namespace gantry::actors {

struct BridgeEndpoints {
  std::string agents = "tcp://127.0.0.1:7800";
  std::string admin = "tcp://127.0.0.1:7801";
  SocketLimits limits;  // on both sockets
};

struct BridgeSecurity {
  // Plaintext, no keys: every peer is "anonymous", an admin that may speak
  // for any cluster. Only with the hub's --insecure.
  bool insecure = false;
  support::CurveKeyPair hub_keys;          // the servers' keypair
  std::shared_ptr<const AccessList> access;  // who may connect; replaced by set_access()
  std::shared_ptr<AuditLog> audit;         // nullptr: no audit log
};

class IoBridge final : public OutboundSink {
 public:
  // Binds both sockets (an endpoint may end in ":*" for a free port; an
  // empty agents endpoint is not bound: a standing-by hub's). Throws
  // std::runtime_error naming the endpoint when a bind fails.
  // `metrics`: admin requests are counted and timed there; nullptr: not.
  IoBridge(const BridgeEndpoints& endpoints, BridgeSecurity security,
           std::shared_ptr<HubIoMetrics> metrics = nullptr);
  ~IoBridge() override;
  IoBridge(const IoBridge&) = delete;
  IoBridge& operator=(const IoBridge&) = delete;

  // The endpoints actually bound (with the port chosen for ":*").
  const std::string& agents_endpoint() const { return agents_endpoint_; }
  const std::string& admin_endpoint() const { return admin_endpoint_; }

  // Starts the I/O thread; `handler` must outlive stop().
  void start(InboundHandler& handler);
  // Sends what is queued, then stops and joins the I/O thread. Idempotent.
  void stop();

  // A new access list (SIGHUP): connections stay; every later frame is
  // checked against it. Thread-safe.
  void set_access(std::shared_ptr<const AccessList> access);
  // The list in force now. Thread-safe.
  std::shared_ptr<const AccessList> current_access();
  // nullptr when there is none.
  const std::shared_ptr<AuditLog>& audit_log() const { return audit_; }

  void send(OutboundFrame frame) override;
  void send_batch(std::vector<OutboundFrame> frames) override;

 private:
  void run();
  void receive_available(zmq::socket_t& socket, Channel channel);
  bool receive_one(zmq::socket_t& socket, Channel channel);
  using Clock = std::chrono::steady_clock;
  void serve_zap_requests();
  void sweep_connections(Clock::time_point now);
  ConnectionGuard& guard_of(Channel channel);
  void refuse(Channel channel, std::string peer, std::uint64_t seq, std::string code,
              std::string message);
  void flush_outbound();
  void send_now(const OutboundFrame& frame);
  void wake();
  zmq::socket_t& socket_for(Channel channel);

  zmq::context_t context_{1};
  zmq::socket_t agents_;
  zmq::socket_t admin_;
  zmq::socket_t wake_receiver_;
  zmq::socket_t wake_sender_;  // used under queue_mutex_ only
  zmq::socket_t zap_;          // REP on inproc://zeromq.zap.01 (not when insecure)
  SocketLimits limits_;
  // After the sockets: destroyed before them, once the I/O thread is gone.
  std::optional<ConnectionGuard> agents_guard_;
  std::optional<ConnectionGuard> admin_guard_;
  FreedMemoryRelease memory_release_;
  LogThrottle refused_log_{std::chrono::seconds(10)};
  std::string agents_endpoint_;
  std::string admin_endpoint_;

  std::mutex queue_mutex_;
  std::vector<OutboundFrame> queued_;
  std::vector<OutboundFrame> sending_;  // owned by the I/O thread; reused
  std::atomic<bool> stopping_{false};

  bool insecure_;
  Principal anonymous_;  // the sender of every frame when insecure
  std::mutex access_mutex_;
  std::shared_ptr<const AccessList> access_;
  std::shared_ptr<AuditLog> audit_;
  std::shared_ptr<HubIoMetrics> metrics_;

  InboundHandler* handler_ = nullptr;
  std::thread thread_;
};

}  // namespace gantry::actors
