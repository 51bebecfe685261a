// The ZAP handler of the cluster role's node socket: node-role agents whose
// public key is listed get in, any other is refused (ZAP 400) and logged once
// per key. It lives in the agent loop's thread: the loop polls socket() and
// calls answer_pending() when it is readable, so no thread of its own.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>
#include <zmq.hpp>

namespace gantry::agents {

class NodeKeyGate {
 public:
  // Binds the handler in `context`, the node socket's context; construct it
  // before that socket binds. `allowed` holds Z85 public keys.
  NodeKeyGate(zmq::context_t& context, std::vector<std::string> allowed);

  zmq::socket_t& socket() { return handler_; }
  // Answers every waiting request.
  void answer_pending();
  // Handshakes refused so far (tests, logs).
  std::size_t refused() const { return refused_; }

 private:
  zmq::socket_t handler_;
  std::set<std::string> allowed_;
  std::set<std::string> logged_;  // refused keys already logged, bounded
  std::size_t refused_ = 0;
};

}  // namespace gantry::agents
