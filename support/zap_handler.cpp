#include "support/zap_handler.hpp"

#include <array>
#include <vector>

namespace gantry::support {

namespace {

constexpr std::size_t kCurveKeyBytes = 32;
// version, request id, domain, address, identity, mechanism, then credentials.
constexpr std::size_t kFixedFrames = 6;

std::string z85_of(const zmq::message_t& binary_key) {
  std::array<char, 41> text{};
  if (binary_key.size() != kCurveKeyBytes ||
      zmq_z85_encode(text.data(), binary_key.data<std::uint8_t>(), kCurveKeyBytes) == nullptr) {
    return {};
  }
  return text.data();
}

void reply(zmq::socket_t& handler, const std::string& request_id, const char* status,
           const std::string& text, const std::string& user_id) {
  const std::array<std::string, 6> frames{"1.0", request_id, status, text, user_id, ""};
  for (std::size_t i = 0; i < frames.size(); ++i) {
    handler.send(zmq::buffer(frames[i]),
                 i + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
  }
}

}  // namespace

zmq::socket_t bind_zap_handler(zmq::context_t& context) {
  zmq::socket_t handler(context, zmq::socket_type::rep);
  handler.set(zmq::sockopt::linger, 0);
  handler.bind(zap_endpoint);
  return handler;
}

bool answer_one_zap_request(zmq::socket_t& handler,
                            const std::function<ZapVerdict(const ZapRequest&)>& decide) {
  std::vector<zmq::message_t> frames;
  zmq::message_t frame;
  if (!handler.recv(frame, zmq::recv_flags::dontwait)) return false;
  frames.push_back(std::move(frame));
  // A multipart message arrives whole: the rest is there already.
  while (frames.back().more()) {
    zmq::message_t next;
    (void)handler.recv(next, zmq::recv_flags::none);
    frames.push_back(std::move(next));
  }
  const std::string request_id = frames.size() > 1 ? frames[1].to_string() : std::string();
  if (frames.size() < kFixedFrames || frames[0].to_string_view() != "1.0") {
    reply(handler, request_id, "500", "not a ZAP 1.0 request", "");
    return true;
  }
  ZapRequest request{frames[2].to_string(), frames[3].to_string(), frames[4].to_string(),
                     frames[5].to_string(), ""};
  if (request.mechanism == "CURVE") {
    if (frames.size() != kFixedFrames + 1 ||
        (request.curve_public_key = z85_of(frames[kFixedFrames])).empty()) {
      reply(handler, request_id, "500", "CURVE request without a 32-byte key", "");
      return true;
    }
  }
  const ZapVerdict verdict = decide(request);
  if (verdict.allowed) {
    reply(handler, request_id, "200", "OK", verdict.user_id);
  } else {
    reply(handler, request_id, "400", verdict.reason.empty() ? "not allowed" : verdict.reason, "");
  }
  return true;
}

}  // namespace gantry::support
