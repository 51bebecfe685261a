// Numeric message types of the envelope and the struct <-> type mapping, all
// derived from the table in protocol/message_table.hpp.
#pragma once

#include <cstdint>
#include <string_view>
#include <variant>

#include "protocol/message_table.hpp"
#include "protocol/messages.hpp"

namespace gantry::protocol {

// Who sends a message to whom; a message may travel several ways.
struct Direction {
  enum : unsigned {
    kAgentToHub = 1U << 0,
    kHubToAgent = 1U << 1,
    kConsoleToHub = 1U << 2,
    kHubToConsole = 1U << 3,
    kNodeToCluster = 1U << 4,  // node-role agent -> cluster-role agent
  };
};

enum class MessageType : std::uint16_t {
  kUnknown = 0,
#define GANTRY_ENUMERATOR(Struct, id, directions) k##Struct = id,
  GANTRY_WIRE_MESSAGES(GANTRY_ENUMERATOR)
#undef GANTRY_ENUMERATOR
};

bool is_known_message_type(std::uint16_t raw);
std::string_view message_type_name(MessageType type);

// MessageTypeOf<T>::value is T's type on the wire; `directions` says who sends it.
template <class T>
struct MessageTypeOf;

#define GANTRY_MESSAGE_TYPE_OF(Struct, id, message_directions)   \
  template <>                                                    \
  struct MessageTypeOf<Struct> {                                 \
    static constexpr MessageType value = MessageType::k##Struct; \
    static constexpr unsigned directions = message_directions;   \
  };
GANTRY_WIRE_MESSAGES(GANTRY_MESSAGE_TYPE_OF)
#undef GANTRY_MESSAGE_TYPE_OF

// Whether T travels in `direction` (one or more of Direction's values).
template <class T>
constexpr bool sent(unsigned direction) {
  return (MessageTypeOf<T>::directions & direction) != 0;
}

// ------------------------------------------------------------ type lists
template <class... Messages>
struct MessageList {};

template <class... A, class... B>
MessageList<A..., B...> operator+(MessageList<A...>, MessageList<B...>);  // types only

// Every message struct, in table order.
using AllMessages = decltype((MessageList<> {}
#define GANTRY_LIST_ENTRY(Struct, id, directions) \
  +MessageList<Struct> {                          \
  }
                              GANTRY_WIRE_MESSAGES(GANTRY_LIST_ENTRY)
#undef GANTRY_LIST_ENTRY
                                  ));

namespace detail {
template <unsigned Direction, class... Messages>
auto sent_in(MessageList<Messages...>) -> decltype((
    MessageList<>{} + ... +
    std::conditional_t<sent<Messages>(Direction), MessageList<Messages>, MessageList<>>{}));
template <class... Messages>
std::variant<Messages...> variant_of(MessageList<Messages...>);
}  // namespace detail

// The messages that travel in `Direction`, in table order.
template <unsigned Direction>
using MessagesSentIn = decltype(detail::sent_in<Direction>(AllMessages{}));

// A std::variant of the messages of a MessageList.
template <class List>
using VariantOf = decltype(detail::variant_of(List{}));

// The tag that visit_message_type hands over: `typename decltype(tag)::type`.
template <class T>
struct MessageTag {
  using type = T;
};

// Calls `visitor(MessageTag<T>{})` for the message struct T whose type is
// `type`; returns false (calling nothing) for kUnknown or a number no table
// entry has.
template <class Visitor>
bool visit_message_type(MessageType type, Visitor&& visitor) {
  switch (type) {
#define GANTRY_VISIT_CASE(Struct, id, directions) \
  case MessageType::k##Struct:                    \
    visitor(MessageTag<Struct>{});                \
    return true;
    GANTRY_WIRE_MESSAGES(GANTRY_VISIT_CASE)
#undef GANTRY_VISIT_CASE
    case MessageType::kUnknown:
      break;
  }
  return false;
}

}  // namespace gantry::protocol
