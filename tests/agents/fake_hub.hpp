// The test plays the hub: a real ROUTER socket on a free loopback port;
// plaintext, or a CurveZMQ server when given a keypair (accepting any client
// key: it has no ZAP handler).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <zmq.hpp>

#include "protocol/envelope.hpp"
#include "support/curve_socket.hpp"

namespace gantry::agents::testing {

struct Received {
  std::string identity;
  std::string frame;
  protocol::MessageType type = protocol::MessageType::kUnknown;
  std::uint64_t seq = 0;
};

template <class T>
T decode_as(const Received& received) {
  protocol::DecodeError error;
  const auto envelope = protocol::decode_envelope(received.frame, error);
  if (!envelope) throw std::runtime_error("undecodable frame from the agent: " + error.message);
  auto message = protocol::decode_payload<T>(*envelope, error);
  if (!message) throw std::runtime_error("unexpected message from the agent: " + error.message);
  return *message;
}

class FakeHub {
 public:
  explicit FakeHub(const std::optional<support::CurveKeyPair>& curve = std::nullopt)
      : router_(context_, zmq::socket_type::router) {
    router_.set(zmq::sockopt::linger, 0);
    if (curve) support::make_curve_server(router_, *curve);
    router_.set(zmq::sockopt::router_mandatory, 1);
    router_.set(zmq::sockopt::router_handover, 1);
    router_.bind("tcp://127.0.0.1:*");  // the OS picks a free port
    endpoint_ = router_.get(zmq::sockopt::last_endpoint);
  }

  const std::string& endpoint() const { return endpoint_; }

  // The next message from any agent, or nullopt when the deadline passes (a
  // deadline only bounds a broken test).
  std::optional<Received> receive(std::chrono::seconds within = std::chrono::seconds(60)) {
    const auto deadline = std::chrono::steady_clock::now() + within;
    while (true) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      zmq::pollitem_t item{router_.handle(), 0, ZMQ_POLLIN, 0};
      std::vector<zmq::pollitem_t> items{item};
      if (zmq::poll(items, left) == 0) continue;
      Received received;
      zmq::message_t part;
      if (!router_.recv(part, zmq::recv_flags::none)) continue;
      received.identity = part.to_string();
      while (part.more() && router_.recv(part, zmq::recv_flags::none)) {
        received.frame = part.to_string();
      }
      protocol::DecodeError error;
      if (const auto envelope = protocol::decode_envelope(received.frame, error)) {
        received.type = envelope->type;
        received.seq = envelope->seq;
      }
      return received;
    }
  }

  // The next message that is not a heartbeat (heartbeats are answered, as the
  // hub does).
  Received next(std::uint64_t epoch) {
    while (true) {
      std::optional<Received> received = receive();
      if (!received) throw std::runtime_error("the agent sent nothing before the deadline");
      if (received->type != protocol::MessageType::kHeartbeat) return *received;
      const auto beat = decode_as<protocol::Heartbeat>(*received);
      send(received->identity, protocol::encode(protocol::Heartbeat{beat.cluster, epoch}));
    }
  }

  template <class T>
  T next_as(std::uint64_t epoch) {
    const Received received = next(epoch);
    EXPECT_EQ(received.type, protocol::MessageTypeOf<T>::value)
        << "got " << protocol::message_type_name(received.type);
    return decode_as<T>(received);
  }

  void send(const std::string& identity, const std::string& frame) {
    router_.send(zmq::buffer(identity), zmq::send_flags::sndmore);
    router_.send(zmq::buffer(frame), zmq::send_flags::none);
  }

 private:
  zmq::context_t context_{1};
  zmq::socket_t router_;
  std::string endpoint_;
};

}  // namespace gantry::agents::testing
