#include "protocol/envelope.hpp"

#include <algorithm>
#include <exception>
#include <stdexcept>

#include "config/input_limits.hpp"

namespace gantry::protocol {

std::string encode_frame(MessageType type, std::uint64_t seq, std::string_view payload) {
  msgpack::sbuffer buffer;
  msgpack::packer<msgpack::sbuffer> packer(buffer);
  packer.pack_array(4);
  packer.pack(kProtocolVersion);
  packer.pack(static_cast<std::uint16_t>(type));
  packer.pack(seq);
  packer.pack_bin(static_cast<std::uint32_t>(payload.size()));
  packer.pack_bin_body(payload.data(), static_cast<std::uint32_t>(payload.size()));
  return std::string(buffer.data(), buffer.size());
}

namespace detail {

msgpack::object_handle unpack_bounded(std::string_view bytes, std::size_t& offset) {
  // Every element and every byte of a value takes at least one byte of input,
  // so a count above the input's size is a lie (and would be allocated before
  // the lie shows); below that, config/input_limits.hpp caps each count, each
  // value's size and the nesting that convert() then recurses through.
  const std::size_t items = std::min(bytes.size(), config::kMaxMsgpackItems);
  const std::size_t value_bytes = std::min(bytes.size(), config::kMaxMsgpackBytes);
  const msgpack::unpack_limit limit(items, items, value_bytes, value_bytes, value_bytes,
                                    config::kMaxMsgpackDepth);
  const auto over = [&](const char* what, std::size_t most, const char* unit) {
    return std::runtime_error(std::string(what) + " over the limit of " + std::to_string(most) +
                              unit);
  };
  try {
    return msgpack::unpack(bytes.data(), bytes.size(), offset, nullptr, nullptr, limit);
  } catch (const msgpack::depth_size_overflow&) {
    throw over("nesting", config::kMaxMsgpackDepth, " levels");
  } catch (const msgpack::array_size_overflow&) {
    throw over("an array", items, " elements");
  } catch (const msgpack::map_size_overflow&) {
    throw over("a map", items, " entries");
  } catch (const msgpack::str_size_overflow&) {
    throw over("a string", value_bytes, " bytes");
  } catch (const msgpack::bin_size_overflow&) {
    throw over("a binary value", value_bytes, " bytes");
  } catch (const msgpack::ext_size_overflow&) {
    throw over("an extension value", value_bytes, " bytes");
  }
}

}  // namespace detail

namespace {

bool read_header(const msgpack::object& root, Envelope& out, DecodeError& error) {
  if (root.type != msgpack::type::ARRAY || root.via.array.size != 4) {
    error = {"bad_frame", "frame is not a 4-element envelope array"};
    return false;
  }
  const msgpack::object* items = root.via.array.ptr;
  if (items[0].type != msgpack::type::POSITIVE_INTEGER ||
      items[1].type != msgpack::type::POSITIVE_INTEGER ||
      items[2].type != msgpack::type::POSITIVE_INTEGER || items[3].type != msgpack::type::BIN) {
    error = {"bad_frame", "envelope fields have the wrong types"};
    return false;
  }
  const std::uint64_t version = items[0].via.u64;
  const std::uint64_t type = items[1].via.u64;
  out.seq = items[2].via.u64;
  if (version != kProtocolVersion) {
    error = {"bad_version", "protocol version " + std::to_string(version) + " is not supported (this peer speaks " +
                                std::to_string(kProtocolVersion) + ")",
             out.seq};
    return false;
  }
  if (type > 0xFFFF || !is_known_message_type(static_cast<std::uint16_t>(type))) {
    error = {"unknown_type", "message type " + std::to_string(type) + " is unknown", out.seq};
    return false;
  }
  out.version = static_cast<std::uint16_t>(version);
  out.type = static_cast<MessageType>(type);
  out.payload.assign(items[3].via.bin.ptr, items[3].via.bin.size);
  return true;
}

}  // namespace

std::optional<Envelope> decode_envelope(std::string_view frame, DecodeError& error) {
  if (frame.empty()) {
    error = {"bad_frame", "empty frame"};
    return std::nullopt;
  }
  try {
    std::size_t offset = 0;
    msgpack::object_handle handle = detail::unpack_bounded(frame, offset);
    if (offset != frame.size()) {
      error = {"bad_frame", "trailing bytes after the envelope"};
      return std::nullopt;
    }
    Envelope envelope;
    if (!read_header(handle.get(), envelope, error)) return std::nullopt;
    return envelope;
  } catch (const std::exception& e) {
    error = {"bad_frame", std::string("undecodable frame: ") + e.what()};
    return std::nullopt;
  }
}

std::string encode_error(std::uint64_t seq, const DecodeError& error) {
  return encode(ErrorReply{error.code, error.message}, seq);
}

bool is_known_message_type(std::uint16_t raw) {
  return visit_message_type(static_cast<MessageType>(raw), [](auto) {});
}

std::string_view message_type_name(MessageType type) {
  std::string_view name = type == MessageType::kUnknown ? "Unknown" : "";
  visit_message_type(type, [&](auto tag) { name = decltype(tag)::type::kWireName; });
  return name;
}

}  // namespace gantry::protocol
