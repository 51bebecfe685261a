// protocol/messages.hpp is included by ~330 sources, most of which encode
// nothing: it stays free of msgpack (protocol/wire_codec.hpp has the encoding).
// With msgpack in it, each of those sources took ~3 s more to compile, and
// CI's two cores pay that twice (the normal and the sanitizer build).
#include "protocol/messages.hpp"

#ifdef MSGPACK_OBJECT_HPP
#error \
    "protocol/messages.hpp includes msgpack again: include protocol/wire_codec.hpp where a struct is encoded"
#endif

#include <gtest/gtest.h>

#include <string_view>

#include "protocol/wire_codec.hpp"

namespace gantry::protocol {
namespace {

TEST(WireHeaders, TheKeysAreTheFieldNamesAsWrittenInOrder) {
  constexpr auto& keys = kWireKeys<Heartbeat>;
  static_assert(keys.size() == 2);
  EXPECT_EQ(keys[0], "cluster");
  EXPECT_EQ(keys[1], "hub_epoch");
}

TEST(WireHeaders, SpacingInTheFieldListIsNotPartOfAKey) {
  EXPECT_EQ((detail::split_field_names<3>("a,b ,  c")),
            (std::array<std::string_view, 3>{"a", "b", "c"}));
}

}  // namespace
}  // namespace gantry::protocol
