// Numeric message types of the envelope and the struct <-> type mapping.
#pragma once

#include <cstdint>
#include <string_view>

#include "protocol/messages.hpp"

namespace gantry::protocol {

enum class MessageType : std::uint16_t {
  kUnknown = 0,
  // agent <-> hub
  kHello = 1,
  kWelcome = 2,
  kHeartbeat = 3,
  kUsageReport = 4,
  kDispatch = 5,
  kAdmit = 6,
  kReject = 7,
  kStatusUpdate = 8,
  kCancel = 9,
  kErrorReply = 10,
  // console <-> hub
  kSubmitJobRequest = 100,
  kSubmitJobReply = 101,
  kListRequest = 102,
  kListReply = 103,
  kDescribeRequest = 104,
  kDescribeReply = 105,
  kCancelRequest = 106,
  kApplyRequest = 107,
  kDeleteRequest = 108,
  kAdminResult = 109,
};

bool is_known_message_type(std::uint16_t raw);
std::string_view message_type_name(MessageType type);

template <class T>
struct MessageTypeOf;

#define GANTRY_MESSAGE_TYPE(Struct, Enum) \
  template <>                             \
  struct MessageTypeOf<Struct> {          \
    static constexpr MessageType value = MessageType::Enum; \
  }

GANTRY_MESSAGE_TYPE(Hello, kHello);
GANTRY_MESSAGE_TYPE(Welcome, kWelcome);
GANTRY_MESSAGE_TYPE(Heartbeat, kHeartbeat);
GANTRY_MESSAGE_TYPE(UsageReport, kUsageReport);
GANTRY_MESSAGE_TYPE(Dispatch, kDispatch);
GANTRY_MESSAGE_TYPE(Admit, kAdmit);
GANTRY_MESSAGE_TYPE(Reject, kReject);
GANTRY_MESSAGE_TYPE(StatusUpdate, kStatusUpdate);
GANTRY_MESSAGE_TYPE(Cancel, kCancel);
GANTRY_MESSAGE_TYPE(ErrorReply, kErrorReply);
GANTRY_MESSAGE_TYPE(SubmitJobRequest, kSubmitJobRequest);
GANTRY_MESSAGE_TYPE(SubmitJobReply, kSubmitJobReply);
GANTRY_MESSAGE_TYPE(ListRequest, kListRequest);
GANTRY_MESSAGE_TYPE(ListReply, kListReply);
GANTRY_MESSAGE_TYPE(DescribeRequest, kDescribeRequest);
GANTRY_MESSAGE_TYPE(DescribeReply, kDescribeReply);
GANTRY_MESSAGE_TYPE(CancelRequest, kCancelRequest);
GANTRY_MESSAGE_TYPE(ApplyRequest, kApplyRequest);
GANTRY_MESSAGE_TYPE(DeleteRequest, kDeleteRequest);
GANTRY_MESSAGE_TYPE(AdminResult, kAdminResult);

#undef GANTRY_MESSAGE_TYPE

}  // namespace gantry::protocol
