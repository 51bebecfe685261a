// Decoding of frames that arrive on the hub's sockets into the messages the
// actors handle. Runs on the I/O bridge thread, so a frame that cannot be
// decoded, or that makes no sense on its socket, is answered there and never
// reaches an actor.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "actors/access_list.hpp"
#include "actors/outbound.hpp"
#include "protocol/envelope.hpp"

namespace gantry::actors {

// Every message an agent or a console sends the hub (protocol/message_table.hpp).
using InboundBody =
    protocol::VariantOf<protocol::MessagesSentIn<protocol::Direction::kAgentToHub |
                                                 protocol::Direction::kConsoleToHub>>;

// Who sent a frame: the name of its CurveZMQ key in the access list, and
// what that key may do on the admin socket.
struct Sender {
  std::string key;
  Role role = Role::kNone;
  std::vector<std::string> queues;  // an operator's queues; empty: every queue
};

struct InboundMessage {
  Channel channel = Channel::kAgents;
  std::string peer;
  std::uint64_t seq = 0;
  InboundBody body;
  Sender sender;
};

class InboundHandler {
 public:
  virtual ~InboundHandler() = default;
  // Called on the bridge thread for every decoded frame.
  virtual void on_message(InboundMessage message) = 0;
  // Called on the bridge thread when a frame could not be sent (peer gone,
  // or its queue is full).
  virtual void on_undeliverable(const OutboundFrame& frame, std::string_view why) = 0;
};

// Decodes `frame` received from `peer` on `channel`. On failure returns nullopt,
// fills `error` (code "bad_frame", "bad_version", "unknown_type", "bad_payload"
// or "unexpected_type" for a message the socket does not accept) and sets
// `seq` to the frame's sequence number when the header could be read (else 0).
std::optional<InboundMessage> decode_inbound(Channel channel, std::string peer,
                                             std::string_view frame, std::uint64_t& seq,
                                             protocol::DecodeError& error);

}  // namespace gantry::actors
