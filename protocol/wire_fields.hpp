// The one field list of a wire struct. GANTRY_WIRE_FIELDS(Struct, a, b, ...)
// inside `struct Struct` gives it, from that single list:
// - `kWireFieldNames`, the names as written ("a, b, ..."), from which
//   protocol/wire_codec.hpp gives its msgpack encoding: a map keyed by the
//   field names, in this order (the keys are the wire contract:
//   tests/protocol/wire_keys_test.cpp pins them);
// - `wire_fields()`, the fields as a tuple of references, which any other
//   serializer walks (the hub's CAF `inspect` in actors/actor_messages.hpp), so
//   no second list can fall out of step with this one;
// - `kWireName`, the struct's name for those serializers;
// - a defaulted `operator==` (member by member), which also fails to compile
//   when `Struct` is not the enclosing struct.
// Deliberately free of CAF and of msgpack: the ~330 sources that include
// protocol/messages.hpp but encode nothing do not pay for either.
#pragma once

#include <string_view>
#include <tuple>

#define GANTRY_WIRE_FIELDS(Struct, ...)                             \
  static constexpr const char* kWireName = #Struct;                 \
  static constexpr std::string_view kWireFieldNames = #__VA_ARGS__; \
  auto wire_fields() {                                              \
    return std::tie(__VA_ARGS__);                                   \
  }                                                                 \
  auto wire_fields() const {                                        \
    return std::tie(__VA_ARGS__);                                   \
  }                                                                 \
  bool operator==(const Struct&) const = default

namespace gantry::protocol {

// A struct declared with GANTRY_WIRE_FIELDS.
template <class T>
concept WireStruct = requires(T& x) {
  {T::kWireName};
  x.wire_fields();
};

}  // namespace gantry::protocol
