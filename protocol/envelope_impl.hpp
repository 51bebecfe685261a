// Template part of envelope.hpp; include envelope.hpp, not this file.
#pragma once

#include <exception>

namespace gantry::protocol {

template <class T>
std::optional<T> decode_payload(const Envelope& envelope, DecodeError& error) {
  if (envelope.type != MessageTypeOf<T>::value) {
    error = {"unexpected_type", "expected " + std::string(message_type_name(MessageTypeOf<T>::value)) +
                                    ", got " + std::string(message_type_name(envelope.type))};
    return std::nullopt;
  }
  try {
    msgpack::object_handle handle = msgpack::unpack(envelope.payload.data(), envelope.payload.size());
    T message;
    handle.get().convert(message);
    return message;
  } catch (const std::exception& e) {
    error = {"bad_payload", std::string(message_type_name(envelope.type)) + ": " + e.what()};
    return std::nullopt;
  }
}

}  // namespace gantry::protocol
