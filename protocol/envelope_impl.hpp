// Template part of envelope.hpp; include envelope.hpp, not this file.
#pragma once

#include <exception>

namespace gantry::protocol {

namespace detail {
// msgpack allocates an array's or map's elements as soon as it reads the header,
// so a hostile 5-byte frame could ask for 4 billion elements (~100 GiB). Every
// element takes at least one byte, so no count above the input size is valid:
// this unpacks with that bound and throws msgpack's errors past it.
msgpack::object_handle unpack_bounded(std::string_view bytes, std::size_t& offset);
}  // namespace detail

template <class T>
std::optional<T> decode_payload(const Envelope& envelope, DecodeError& error) {
  if (envelope.type != MessageTypeOf<T>::value) {
    error = {"unexpected_type", "expected " + std::string(message_type_name(MessageTypeOf<T>::value)) +
                                    ", got " + std::string(message_type_name(envelope.type)),
             envelope.seq};
    return std::nullopt;
  }
  try {
    std::size_t offset = 0;
    msgpack::object_handle handle = detail::unpack_bounded(envelope.payload, offset);
    if (offset != envelope.payload.size()) {
      error = {"bad_payload",
               std::string(message_type_name(envelope.type)) + ": trailing bytes after the payload", envelope.seq};
      return std::nullopt;
    }
    T message;
    handle.get().convert(message);
    return message;
  } catch (const std::exception& e) {
    error = {"bad_payload", std::string(message_type_name(envelope.type)) + ": " + e.what(), envelope.seq};
    return std::nullopt;
  }
}

}  // namespace gantry::protocol
