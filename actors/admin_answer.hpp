// The frame answering a gantryctl request, marked with the request's seq and
// what the answer said, so that the I/O bridge counts and times it
// (actors/hub_io_metrics.hpp) without decoding it again.
#pragma once

#include "actors/actor_messages.hpp"
#include "actors/outbound.hpp"
#include "protocol/envelope.hpp"

namespace gantry::actors {

template <class Reply>
OutboundFrame admin_answer(const ReplyTo& to, const Reply& message) {
  OutboundFrame frame{Channel::kAdmin, to.peer, protocol::encode(message, to.seq), 0};
  frame.answer_seq = to.seq;
  if constexpr (requires { message.ok; }) {
    frame.answer_result = message.ok ? "ok" : "refused";
  } else {
    frame.answer_result = "ok";
  }
  return frame;
}

}  // namespace gantry::actors
