// Plays the hub's admin socket in tests: a real ROUTER on a free loopback port,
// answering each request with whatever frames the test's handler returns.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "protocol/envelope.hpp"

namespace gantry::console::testing {

class FakeHub {
 public:
  // Gets each request's raw frame; returns the frames to send back, in order
  // (none: the hub stays silent).
  using Handler = std::function<std::vector<std::string>(const std::string& request)>;

  explicit FakeHub(Handler handler);
  ~FakeHub();
  FakeHub(const FakeHub&) = delete;
  FakeHub& operator=(const FakeHub&) = delete;

  // tcp://127.0.0.1:<port chosen by the kernel>
  const std::string& endpoint() const { return endpoint_; }
  // Every request received so far, decoded (frames that do not decode are kept
  // as envelopes of type kUnknown).
  std::vector<protocol::Envelope> requests() const;

 private:
  void serve();
  void answer_one();

  Handler handler_;
  zmq::context_t context_{1};
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
