// The msgpack encoding of every GANTRY_WIRE_FIELDS struct: a map keyed by the
// field names, in field order. Include this (or protocol/envelope.hpp) where a
// wire struct is packed or converted; protocol/messages.hpp itself stays free
// of msgpack.
//
// Why not MSGPACK_DEFINE_MAP in each struct: its expansion (and the
// instantiation of its non-template unpack member) cost ~2.5 s of compiler
// time in each of the ~330 sources that include messages.hpp, most of which
// never encode anything. The bytes and the reading are msgpack's own
// define_map's, kept so by tests/protocol/wire_keys_test.cpp and
// round_trip_test.cpp: a map of the fields' names (str) to their values;
// reading takes a map with str keys only (type_error otherwise), the first of
// duplicate keys, ignores unknown keys and leaves a missing field as it was.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <msgpack.hpp>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "protocol/wire_fields.hpp"

namespace gantry::protocol {

template <WireStruct T>
inline constexpr std::size_t kWireFieldCount =
    std::tuple_size_v<decltype(std::declval<T&>().wire_fields())>;

namespace detail {
// "a, b,c" (the stringized field list) -> {"a", "b", "c"}.
template <std::size_t N>
constexpr std::array<std::string_view, N> split_field_names(std::string_view list) {
  std::array<std::string_view, N> names{};
  std::size_t count = 0;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    std::string_view name = list.substr(0, comma);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (count < N) names[count] = name;
    ++count;
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  // A constant expression only when the list names exactly N fields.
  if (count != N) throw "GANTRY_WIRE_FIELDS: field names and fields differ in number";
  return names;
}
}  // namespace detail

// The wire keys of T, in field order.
template <WireStruct T>
inline constexpr std::array<std::string_view, kWireFieldCount<T>> kWireKeys =
    detail::split_field_names<kWireFieldCount<T>>(T::kWireFieldNames);

}  // namespace gantry::protocol

namespace msgpack {
MSGPACK_API_VERSION_NAMESPACE(MSGPACK_DEFAULT_API_NS) {
  namespace adaptor {

  template <gantry::protocol::WireStruct T>
  struct pack<T> {
    template <class Stream>
    packer<Stream>& operator()(packer<Stream>& out, const T& value) const {
      constexpr auto& keys = gantry::protocol::kWireKeys<T>;
      out.pack_map(static_cast<std::uint32_t>(keys.size()));
      std::apply(
          [&](const auto&... fields) {
            std::size_t index = 0;
            (pack_entry(out, keys[index++], fields), ...);
          },
          value.wire_fields());
      return out;
    }

   private:
    template <class Stream, class Field>
    static void pack_entry(packer<Stream>& out, std::string_view key, const Field& field) {
      out.pack_str(static_cast<std::uint32_t>(key.size()));
      out.pack_str_body(key.data(), static_cast<std::uint32_t>(key.size()));
      out.pack(field);
    }
  };

  template <gantry::protocol::WireStruct T>
  struct convert<T> {
    const msgpack::object& operator()(const msgpack::object& in, T& value) const {
      if (in.type != msgpack::type::MAP) throw msgpack::type_error();
      std::map<std::string_view, const msgpack::object*> by_key;
      for (std::uint32_t i = 0; i < in.via.map.size; ++i) {
        const msgpack::object_kv& entry = in.via.map.ptr[i];
        if (entry.key.type != msgpack::type::STR) throw msgpack::type_error();
        by_key.emplace(std::string_view(entry.key.via.str.ptr, entry.key.via.str.size), &entry.val);
      }
      constexpr auto& keys = gantry::protocol::kWireKeys<T>;
      std::apply(
          [&](auto&... fields) {
            std::size_t index = 0;
            (read_field(by_key, keys[index++], fields), ...);
          },
          value.wire_fields());
      return in;
    }

   private:
    template <class Field>
    static void read_field(const std::map<std::string_view, const msgpack::object*>& by_key,
                           std::string_view key, Field& field) {
      const auto found = by_key.find(key);
      if (found != by_key.end()) msgpack::v1::type::convert_helper(*found->second, field);
    }
  };

  template <gantry::protocol::WireStruct T>
  struct object_with_zone<T> {
    void operator()(msgpack::object::with_zone& out, const T& value) const {
      constexpr auto& keys = gantry::protocol::kWireKeys<T>;
      out.type = msgpack::type::MAP;
      out.via.map.size = static_cast<std::uint32_t>(keys.size());
      out.via.map.ptr = static_cast<msgpack::object_kv*>(out.zone.allocate_align(
          sizeof(msgpack::object_kv) * keys.size(), MSGPACK_ZONE_ALIGNOF(msgpack::object_kv)));
      std::apply(
          [&](const auto&... fields) {
            std::size_t index = 0;
            ((out.via.map.ptr[index].key = msgpack::object(keys[index], out.zone),
              out.via.map.ptr[index].val = msgpack::object(fields, out.zone), ++index),
             ...);
          },
          value.wire_fields());
    }
  };

  }  // namespace adaptor
}  // MSGPACK_API_VERSION_NAMESPACE(MSGPACK_DEFAULT_API_NS)
}  // namespace msgpack
