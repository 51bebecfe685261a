// The test plays the hub: a real ROUTER socket on a free loopback port;
// plaintext, or a CurveZMQ server when given a keypair: accepting any client
// key, or with an allow-list only the keys on it (a ZAP handler served while
// the test waits in receive(), as the hub's access.yaml).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <zmq.hpp>

#include "protocol/envelope.hpp"
#include "support/curve_socket.hpp"
#include "support/zap_handler.hpp"

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
  explicit FakeHub(const std::optional<support::CurveKeyPair>& curve = std::nullopt,
                   std::optional<std::set<std::string>> allowed_keys = std::nullopt)
      : allowed_keys_(std::move(allowed_keys)), router_(context_, zmq::socket_type::router) {
    router_.set(zmq::sockopt::linger, 0);
    if (curve && allowed_keys_) zap_ = support::bind_zap_handler(context_);
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
      if (zap_) items.push_back({zap_->handle(), 0, ZMQ_POLLIN, 0});
      if (zmq::poll(items, left) == 0) continue;
      if (zap_ && (items[1].revents & ZMQ_POLLIN)) answer_zap();
      if ((items[0].revents & ZMQ_POLLIN) == 0) continue;
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

  // Serves the ZAP handler until `count` handshakes were refused in all;
  // false when the deadline (a broken test's bound) passed first.
  bool await_refusals(std::size_t count, std::chrono::seconds within = std::chrono::seconds(60)) {
    const auto deadline = std::chrono::steady_clock::now() + within;
    while (refused_ < count && std::chrono::steady_clock::now() < deadline) {
      std::vector<zmq::pollitem_t> items{{zap_->handle(), 0, ZMQ_POLLIN, 0}};
      if (zmq::poll(items, std::chrono::milliseconds(100)) > 0) answer_zap();
    }
    return refused_ >= count;
  }
  // As the hub after its access.yaml gained the key and a SIGHUP.
  void allow(const std::string& public_key) { allowed_keys_->insert(public_key); }

  void send(const std::string& identity, const std::string& frame) {
    router_.send(zmq::buffer(identity), zmq::send_flags::sndmore);
    router_.send(zmq::buffer(frame), zmq::send_flags::none);
  }

 private:
  void answer_zap() {
    support::answer_one_zap_request(*zap_, [this](const support::ZapRequest& request) {
      if (allowed_keys_->count(request.curve_public_key) != 0) {
        return support::ZapVerdict{true, request.curve_public_key, ""};
      }
      ++refused_;
      return support::ZapVerdict{false, "", "not in access.yaml"};
    });
  }

  std::optional<std::set<std::string>> allowed_keys_;
  std::size_t refused_ = 0;
  zmq::context_t context_{1};
  std::optional<zmq::socket_t> zap_;
  zmq::socket_t router_;
  std::string endpoint_;
};

}  // namespace gantry::agents::testing
