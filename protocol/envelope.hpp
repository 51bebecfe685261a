// The versioned envelope every Gantry frame travels in, and the codec that turns
// messages into frames and back. A frame is a msgpack array
//   [version: u16, type: u16, seq: u64, payload: bin]
// where payload is the msgpack encoding of the message struct, so a receiver can
// read the header (and answer an error) without understanding the payload.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/message_types.hpp"
#include "protocol/messages.hpp"
#include "protocol/wire_codec.hpp"

namespace gantry::protocol {

struct Envelope {
  std::uint16_t version = kProtocolVersion;
  MessageType type = MessageType::kUnknown;
  std::uint64_t seq = 0;
  std::string payload;
};

// Why a frame could not be decoded. `code` is stable ("bad_frame", "bad_version",
// "unknown_type", "bad_payload"), `message` is for people and logs.
struct DecodeError {
  std::string code;
  std::string message;
  std::uint64_t seq = 0;  // the frame's seq once the header was readable, so the error answers it
};

template <class T>
std::string encode_payload(const T& message) {
  msgpack::sbuffer buffer;
  msgpack::pack(buffer, message);
  return std::string(buffer.data(), buffer.size());
}

std::string encode_frame(MessageType type, std::uint64_t seq, std::string_view payload);

// Encodes `message` as a complete frame; its type comes from MessageTypeOf<T>.
template <class T>
std::string encode(const T& message, std::uint64_t seq = 0) {
  return encode_frame(MessageTypeOf<T>::value, seq, encode_payload(message));
}

// Reads the header. On failure returns nullopt and fills `error`.
std::optional<Envelope> decode_envelope(std::string_view frame, DecodeError& error);

// Reads the payload as T. The envelope's type must be T's type.
template <class T>
std::optional<T> decode_payload(const Envelope& envelope, DecodeError& error);

// Frames an ErrorReply answering a frame that could not be handled.
std::string encode_error(std::uint64_t seq, const DecodeError& error);

}  // namespace gantry::protocol

#include "protocol/envelope_impl.hpp"
