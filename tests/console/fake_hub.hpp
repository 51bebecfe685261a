// Plays the hub's admin socket in tests: a real ROUTER on a free loopback port,
// answering each request with whatever frames the test's handler returns.
// Encrypted like the real hub (a CurveZMQ server with its own keypair) unless
// made plaintext; it accepts any client key unless told to refuse them all.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "protocol/envelope.hpp"
#include "support/curve_socket.hpp"

namespace gantry::console::testing {

class FakeHub {
 public:
  // Gets each request's raw frame; returns the frames to send back, in order
  // (none: the hub stays silent).
  using Handler = std::function<std::vector<std::string>(const std::string& request)>;

  // kCurveRefusingEveryKey: a ZAP handler answers 400 to every client, as the
  // real hub does for a key its access.yaml does not list.
  enum class Transport { kCurve, kCurveRefusingEveryKey, kPlaintext };

  explicit FakeHub(Handler handler, Transport transport = Transport::kCurve);
  ~FakeHub();
  FakeHub(const FakeHub&) = delete;
  FakeHub& operator=(const FakeHub&) = delete;

  // tcp://127.0.0.1:<port chosen by the kernel>
  const std::string& endpoint() const { return endpoint_; }
  // The hub's keypair (unused in plaintext).
  const support::CurveKeyPair& keys() const { return keys_; }
  // What a HubClient needs to talk to this hub: its public key and a fresh
  // client keypair; nullopt in plaintext.
  std::optional<support::CurveClientKeys> client_keys() const;
  // Every request received so far, decoded (frames that do not decode are kept
  // as envelopes of type kUnknown).
  std::vector<protocol::Envelope> requests() const;

 private:
  void serve();
  void answer_one();

  Handler handler_;
  Transport transport_;
  support::CurveKeyPair keys_;
  zmq::context_t context_{1};
  std::optional<zmq::socket_t> zap_;  // kCurveRefusingEveryKey
  zmq::socket_t router_{context_, zmq::socket_type::router};
  zmq::socket_t stop_receiver_{context_, zmq::socket_type::pair};
  zmq::socket_t stop_sender_{context_, zmq::socket_type::pair};
  std::string endpoint_;
  mutable std::mutex mutex_;
  std::vector<protocol::Envelope> requests_;
  std::thread thread_;
};

// A handler answering every request with `reply`, echoing the request's seq.
template <class Reply>
FakeHub::Handler always_reply(Reply reply) {
  return [reply](const std::string& request) -> std::vector<std::string> {
    protocol::DecodeError error;
    const auto envelope = protocol::decode_envelope(request, error);
    return {protocol::encode(reply, envelope ? envelope->seq : 0)};
  };
}

}  // namespace gantry::console::testing
