#include "actors/inbound.hpp"

#include <utility>

namespace gantry::actors {

std::string_view channel_name(Channel channel) {
  return channel == Channel::kAgents ? "agents" : "admin";
}

namespace {

// Agents talk on the agents socket, consoles on the admin socket.
template <class T>
bool accepted_on(Channel channel) {
  return protocol::sent<T>(channel == Channel::kAgents ? protocol::Direction::kAgentToHub
                                                       : protocol::Direction::kConsoleToHub);
}

}  // namespace

std::optional<InboundMessage> decode_inbound(Channel channel, std::string peer,
                                             std::string_view frame, std::uint64_t& seq,
                                             protocol::DecodeError& error) {
  seq = 0;
  std::optional<protocol::Envelope> envelope = protocol::decode_envelope(frame, error);
  if (!envelope) return std::nullopt;
  seq = envelope->seq;
  std::optional<InboundBody> body;
  bool accepted = false;
  protocol::visit_message_type(envelope->type, [&](auto tag) {
    using Message = typename decltype(tag)::type;
    accepted = accepted_on<Message>(channel);
    if constexpr (protocol::sent<Message>(protocol::Direction::kAgentToHub |
                                          protocol::Direction::kConsoleToHub)) {
      if (!accepted) return;
      if (std::optional<Message> message = protocol::decode_payload<Message>(*envelope, error)) {
        body.emplace(std::move(*message));
      }
    }
  });
  if (!accepted) {
    error = {"unexpected_type", std::string(protocol::message_type_name(envelope->type)) +
                                    " is not accepted on the hub's " +
                                    std::string(channel_name(channel)) + " socket"};
    return std::nullopt;
  }
  if (!body) return std::nullopt;
  return InboundMessage{channel, std::move(peer), envelope->seq, std::move(*body), Sender{}};
}

}  // namespace gantry::actors
