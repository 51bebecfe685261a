#include "agents/node_key_gate.hpp"

#include <spdlog/spdlog.h>

#include "support/zap_handler.hpp"

namespace gantry::agents {

namespace {

// A refused node retries every 100 ms (libzmq's reconnect interval); one line
// per key is enough, and a flood of made-up keys must not grow memory.
constexpr std::size_t kMaxLoggedKeys = 1024;

}  // namespace

NodeKeyGate::NodeKeyGate(zmq::context_t& context, std::vector<std::string> allowed)
    : handler_(support::bind_zap_handler(context)), allowed_(allowed.begin(), allowed.end()) {}

void NodeKeyGate::answer_pending() {
  const auto decide = [this](const support::ZapRequest& request) -> support::ZapVerdict {
    if (request.mechanism == "CURVE" && allowed_.count(request.curve_public_key) != 0) {
      return {true, request.curve_public_key, ""};
    }
    ++refused_;
    if (logged_.size() < kMaxLoggedKeys && logged_.insert(request.curve_public_key).second) {
      spdlog::warn(
          "node socket: refused a node-role agent from {} with key \"{}\" ({}): not this "
          "agent's --key nor in --node-keys",
          request.address, request.curve_public_key, request.mechanism);
    }
    return {false, "", "key not allowed"};
  };
  while (support::answer_one_zap_request(handler_, decide)) {
  }
}

}  // namespace gantry::agents
