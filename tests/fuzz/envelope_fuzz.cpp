// The wire protocol's receive path on untrusted bytes: the envelope, the
// payload of every message type (protocol/message_table.hpp), and the hub's
// decode_inbound on both of its sockets. None of these may throw, crash or
// trip ASan/UBSan; a frame either decodes or yields a DecodeError with a code.
// A payload that decodes must encode back to bytes that decode to the same
// encoding (a round trip through the struct loses nothing it kept).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "actors/inbound.hpp"
#include "protocol/envelope.hpp"

namespace {

using namespace gantry;

// abort() rather than assert(): the fuzz build may define NDEBUG.
void check(bool condition) {
  if (!condition) std::abort();
}

void decode_every_way(std::string_view frame) {
  protocol::DecodeError error;
  const std::optional<protocol::Envelope> envelope = protocol::decode_envelope(frame, error);
  if (!envelope) {
    check(!error.code.empty());
    return;
  }
  protocol::visit_message_type(envelope->type, [&](auto tag) {
    using Message = typename decltype(tag)::type;
    const std::optional<Message> message = protocol::decode_payload<Message>(*envelope, error);
    if (!message) {
      check(!error.code.empty());
      return;
    }
    const std::string payload = protocol::encode_payload(*message);
    const protocol::Envelope again{protocol::kProtocolVersion, envelope->type, envelope->seq,
                                   payload};
    const std::optional<Message> decoded_again = protocol::decode_payload<Message>(again, error);
    check(decoded_again.has_value());
    check(protocol::encode_payload(*decoded_again) == payload);
  });
  for (const actors::Channel channel : {actors::Channel::kAgents, actors::Channel::kAdmin}) {
    std::uint64_t seq = 0;
    protocol::DecodeError inbound_error;
    const auto inbound = actors::decode_inbound(channel, "peer", frame, seq, inbound_error);
    check(inbound.has_value() || !inbound_error.code.empty());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  decode_every_way(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
