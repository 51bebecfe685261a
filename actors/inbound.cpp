#include "actors/inbound.hpp"

#include <utility>

namespace gantry::actors {

std::string_view channel_name(Channel channel) {
  return channel == Channel::kAgents ? "agents" : "admin";
}

namespace {

using protocol::MessageType;

bool accepted_on(Channel channel, MessageType type) {
  switch (type) {
    case MessageType::kHello:
    case MessageType::kHeartbeat:
    case MessageType::kUsageReport:
    case MessageType::kAdmit:
    case MessageType::kReject:
    case MessageType::kStatusUpdate:
    case MessageType::kErrorReply:
      return channel == Channel::kAgents;
    case MessageType::kSubmitJobRequest:
    case MessageType::kListRequest:
    case MessageType::kDescribeRequest:
    case MessageType::kCancelRequest:
    case MessageType::kApplyRequest:
    case MessageType::kDeleteRequest:
      return channel == Channel::kAdmin;
    default:
      return false;
  }
}

template <class T>
std::optional<InboundBody> decode_body(const protocol::Envelope& envelope,
                                       protocol::DecodeError& error) {
  std::optional<T> message = protocol::decode_payload<T>(envelope, error);
  if (!message) return std::nullopt;
  return InboundBody{std::move(*message)};
}

std::optional<InboundBody> decode_body_of_type(const protocol::Envelope& envelope,
                                               protocol::DecodeError& error) {
  switch (envelope.type) {
    case MessageType::kHello:
      return decode_body<protocol::Hello>(envelope, error);
    case MessageType::kHeartbeat:
      return decode_body<protocol::Heartbeat>(envelope, error);
    case MessageType::kUsageReport:
      return decode_body<protocol::UsageReport>(envelope, error);
    case MessageType::kAdmit:
      return decode_body<protocol::Admit>(envelope, error);
    case MessageType::kReject:
      return decode_body<protocol::Reject>(envelope, error);
    case MessageType::kStatusUpdate:
      return decode_body<protocol::StatusUpdate>(envelope, error);
    case MessageType::kErrorReply:
      return decode_body<protocol::ErrorReply>(envelope, error);
    case MessageType::kSubmitJobRequest:
      return decode_body<protocol::SubmitJobRequest>(envelope, error);
    case MessageType::kListRequest:
      return decode_body<protocol::ListRequest>(envelope, error);
    case MessageType::kDescribeRequest:
      return decode_body<protocol::DescribeRequest>(envelope, error);
    case MessageType::kCancelRequest:
      return decode_body<protocol::CancelRequest>(envelope, error);
    case MessageType::kApplyRequest:
      return decode_body<protocol::ApplyRequest>(envelope, error);
    case MessageType::kDeleteRequest:
      return decode_body<protocol::DeleteRequest>(envelope, error);
    default:
      error = {"unexpected_type", std::string(protocol::message_type_name(envelope.type)) +
                                      " is not accepted by the hub"};
      return std::nullopt;
  }
}

}  // namespace

std::optional<InboundMessage> decode_inbound(Channel channel, std::string peer,
                                             std::string_view frame, std::uint64_t& seq,
                                             protocol::DecodeError& error) {
  seq = 0;
  std::optional<protocol::Envelope> envelope = protocol::decode_envelope(frame, error);
  if (!envelope) return std::nullopt;
  seq = envelope->seq;
  if (!accepted_on(channel, envelope->type)) {
    error = {"unexpected_type", std::string(protocol::message_type_name(envelope->type)) +
                                    " is not accepted on the hub's " +
                                    std::string(channel_name(channel)) + " socket"};
    return std::nullopt;
  }
  std::optional<InboundBody> body = decode_body_of_type(*envelope, error);
  if (!body) return std::nullopt;
  return InboundMessage{channel, std::move(peer), envelope->seq, std::move(*body)};
}

}  // namespace gantry::actors
