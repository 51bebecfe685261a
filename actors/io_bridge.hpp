// The one thread that owns the hub's ZeroMQ sockets: a ROUTER for agents, a
// ROUTER for gantryctl, and an inproc PAIR that wakes it when actors queue
// frames. Inbound frames are decoded here and handed to an InboundHandler;
// undecodable ones are answered with an ErrorReply on the spot.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "actors/inbound.hpp"
#include "actors/outbound.hpp"

namespace gantry::actors {

struct BridgeEndpoints {
  std::string agents = "tcp://127.0.0.1:7800";
  std::string admin = "tcp://127.0.0.1:7801";
};

class IoBridge final : public OutboundSink {
 public:
  // Binds both sockets (an endpoint may end in ":*" for a free port). Throws
  // std::runtime_error naming the endpoint when a bind fails.
  explicit IoBridge(const BridgeEndpoints& endpoints);
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

  void send(OutboundFrame frame) override;
  void send_batch(std::vector<OutboundFrame> frames) override;

 private:
  void run();
  void receive_available(zmq::socket_t& socket, Channel channel);
  bool receive_one(zmq::socket_t& socket, Channel channel);
  void flush_outbound();
  void send_now(const OutboundFrame& frame);
  void wake();
  zmq::socket_t& socket_for(Channel channel);

  zmq::context_t context_{1};
  zmq::socket_t agents_;
  zmq::socket_t admin_;
  zmq::socket_t wake_receiver_;
  zmq::socket_t wake_sender_;  // used under queue_mutex_ only
  std::string agents_endpoint_;
  std::string admin_endpoint_;

  std::mutex queue_mutex_;
  std::vector<OutboundFrame> queued_;
  std::vector<OutboundFrame> sending_;  // owned by the I/O thread; reused
  std::atomic<bool> stopping_{false};

  InboundHandler* handler_ = nullptr;
  std::thread thread_;
};

}  // namespace gantry::actors
