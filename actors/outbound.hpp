// What actors hand to the I/O bridge: frames for a peer on one of the hub's two
// sockets. Actors never touch sockets; they talk to an OutboundSink, which the
// bridge implements (and actor tests fake).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::actors {

enum class Channel : std::uint8_t {
  kAgents,  // ROUTER the cluster agents connect to
  kAdmin,   // ROUTER gantryctl connects to
};

std::string_view channel_name(Channel channel);

struct OutboundFrame {
  Channel channel = Channel::kAgents;
  std::string peer;   // ZeroMQ routing id
  std::string frame;  // protocol::encode(...)
  // Set for Prepare and Commit frames, so that a frame the bridge cannot
  // deliver is logged with its dispatch (the dispatcher sends it again).
  std::uint64_t dispatch_id = 0;
  // Set on the answer to an admin request (admin_answer()): whether it said
  // ok, "refused" or "error", for the admin requests' metrics.
  std::string_view answer_result{};
  std::uint64_t answer_seq = 0;  // the request's seq, with answer_result
};

class OutboundSink {
 public:
  virtual ~OutboundSink() = default;
  // Both are thread-safe; frames to one peer keep the order they were handed in.
  virtual void send(OutboundFrame frame) = 0;
  virtual void send_batch(std::vector<OutboundFrame> frames) = 0;
};

}  // namespace gantry::actors
