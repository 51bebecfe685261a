// Each way a frame can be wrong is reported with its stable error code.
#include <gtest/gtest.h>

#include <string>

#include "protocol/envelope.hpp"
#include "tests/protocol/sample_messages.hpp"

namespace gantry::protocol {
namespace {

// A frame with a hand-chosen header, for headers encode() would never write.
std::string raw_frame(std::uint64_t version, std::uint64_t type, std::uint64_t seq,
                      const std::string& payload) {
  msgpack::sbuffer buffer;
  msgpack::packer<msgpack::sbuffer> packer(buffer);
  packer.pack_array(4);
  packer.pack(version);
  packer.pack(type);
  packer.pack(seq);
  packer.pack_bin(static_cast<std::uint32_t>(payload.size()));
  packer.pack_bin_body(payload.data(), static_cast<std::uint32_t>(payload.size()));
  return std::string(buffer.data(), buffer.size());
}

template <class Packable>
std::string packed(const Packable& value) {
  msgpack::sbuffer buffer;
  msgpack::pack(buffer, value);
  return std::string(buffer.data(), buffer.size());
}

DecodeError envelope_error(const std::string& frame) {
  DecodeError error;
  EXPECT_FALSE(decode_envelope(frame, error)) << "frame unexpectedly decoded";
  return error;
}

template <class T>
DecodeError payload_error(const std::string& frame) {
  DecodeError error;
  const auto envelope = decode_envelope(frame, error);
  EXPECT_TRUE(envelope) << error.code << ": " << error.message;
  if (!envelope) return error;
  EXPECT_FALSE(decode_payload<T>(*envelope, error)) << "payload unexpectedly decoded";
  return error;
}

TEST(EnvelopeErrors, WrongPayloadTypeIsUnexpectedType) {
  const DecodeError error = payload_error<Welcome>(encode(Hello{"east", {}, "1", {}, {}}, 3));
  EXPECT_EQ(error.code, "unexpected_type");
  EXPECT_NE(error.message.find("Welcome"), std::string::npos) << error.message;
  EXPECT_NE(error.message.find("Hello"), std::string::npos) << error.message;
}

TEST(EnvelopeErrors, UnknownVersionIsBadVersion) {
  const std::string frame = raw_frame(kProtocolVersion + 1, 1, 99, encode_payload(Hello{}));
  const DecodeError error = envelope_error(frame);
  EXPECT_EQ(error.code, "bad_version");
  EXPECT_NE(error.message.find(std::to_string(kProtocolVersion + 1)), std::string::npos);
  EXPECT_EQ(envelope_error(raw_frame(0, 1, 1, "")).code, "bad_version");
  EXPECT_EQ(envelope_error(raw_frame(1ULL << 40, 1, 1, "")).code, "bad_version");
}

TEST(EnvelopeErrors, UnknownTypeIsUnknownType) {
  // 5: protocol version 1's Dispatch, retired.
  for (const std::uint64_t type : {std::uint64_t{0}, std::uint64_t{5}, std::uint64_t{17},
                                   std::uint64_t{99}, std::uint64_t{999}, std::uint64_t{0x10001}}) {
    SCOPED_TRACE("type " + std::to_string(type));
    const DecodeError error = envelope_error(raw_frame(kProtocolVersion, type, 1, ""));
    EXPECT_EQ(error.code, "unknown_type");
    EXPECT_NE(error.message.find(std::to_string(type)), std::string::npos) << error.message;
  }
}

TEST(EnvelopeErrors, PayloadThatIsNotAMapIsBadPayload) {
  const std::string frame = encode_frame(MessageType::kHello, 1, packed(42));
  EXPECT_EQ(payload_error<Hello>(frame).code, "bad_payload");
}

TEST(EnvelopeErrors, FieldOfTheWrongTypeIsBadPayload) {
  const std::map<std::string, int> cluster_is_a_number{{"cluster", 5}};
  EXPECT_EQ(
      payload_error<Hello>(encode_frame(MessageType::kHello, 1, packed(cluster_is_a_number))).code,
      "bad_payload");
  const std::map<std::string, std::string> ok_is_a_string{{"ok", "yes"}};
  EXPECT_EQ(
      payload_error<AdminResult>(encode_frame(MessageType::kAdminResult, 1, packed(ok_is_a_string)))
          .code,
      "bad_payload");
}

TEST(EnvelopeErrors, IntegerOutOfRangeForTheFieldIsBadPayload) {
  const std::map<std::string, std::int64_t> interval_too_big{{"heartbeat_interval_ms", 1LL << 40}};
  EXPECT_EQ(
      payload_error<Welcome>(encode_frame(MessageType::kWelcome, 1, packed(interval_too_big))).code,
      "bad_payload");
  const std::map<std::string, std::int64_t> negative_epoch{{"hub_epoch", -1}};
  EXPECT_EQ(
      payload_error<Welcome>(encode_frame(MessageType::kWelcome, 1, packed(negative_epoch))).code,
      "bad_payload");
}

TEST(EnvelopeErrors, EmptyOrTrailingPayloadIsBadPayload) {
  EXPECT_EQ(payload_error<Admit>(encode_frame(MessageType::kAdmit, 1, "")).code, "bad_payload");
  const std::string trailing = encode_payload(Admit{1, "j", 0, "", 0}) + "\xc0";
  EXPECT_EQ(payload_error<Admit>(encode_frame(MessageType::kAdmit, 1, trailing)).code,
            "bad_payload");
}

TEST(EnvelopeErrors, MalformedEnvelopesAreBadFrame) {
  EXPECT_EQ(envelope_error("").code, "bad_frame");
  EXPECT_EQ(envelope_error(packed(7)).code, "bad_frame");
  EXPECT_EQ(envelope_error(packed(std::vector<int>{1, 1, 1})).code, "bad_frame");
  EXPECT_EQ(envelope_error(packed(std::vector<int>{1, 1, 1, 1})).code, "bad_frame");  // no bin
  EXPECT_EQ(envelope_error(encode(Admit{}, 1) + "x").code, "bad_frame");
}

// A 5-byte header claiming 4 billion elements must be refused, not allocated.
TEST(EnvelopeErrors, HugeContainerHeadersAreRefusedWithoutAllocating) {
  EXPECT_EQ(envelope_error(std::string("\xdd\xff\xff\xff\xff", 5)).code, "bad_frame");
  EXPECT_EQ(envelope_error(std::string("\xdf\xff\xff\xff\xff", 5)).code, "bad_frame");
  const std::string huge_map("\xdf\xff\xff\xff\xff", 5);
  EXPECT_EQ(payload_error<Hello>(encode_frame(MessageType::kHello, 1, huge_map)).code,
            "bad_payload");
  const std::string huge_array_field = std::string(
      "\x81\xa7"
      "cluster"
      "\xdd\xff\xff\xff\xff");
  EXPECT_EQ(payload_error<Hello>(encode_frame(MessageType::kHello, 1, huge_array_field)).code,
            "bad_payload");
}

TEST(EnvelopeErrors, EncodeErrorAnswersWithTheSeqAndCode) {
  const std::string frame = encode_error(41, DecodeError{"bad_version", "speak 1"});
  DecodeError error;
  const auto envelope = decode_envelope(frame, error);
  ASSERT_TRUE(envelope);
  EXPECT_EQ(envelope->seq, 41u);
  const auto reply = decode_payload<ErrorReply>(*envelope, error);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->code, "bad_version");
  EXPECT_EQ(reply->message, "speak 1");
}

// A newer peer may add keys; this peer keeps the ones it knows.
TEST(ForwardCompatibility, UnknownKeysAreIgnored) {
  msgpack::sbuffer buffer;
  msgpack::packer<msgpack::sbuffer> packer(buffer);
  packer.pack_map(4);
  packer.pack(std::string("cluster"));
  packer.pack(std::string("east"));
  packer.pack(std::string("gpu_topology"));  // a key from the future, of a nested type
  packer.pack(std::map<std::string, std::vector<int>>{{"nvlink", {0, 1, 2}}});
  packer.pack(std::string("agent_version"));
  packer.pack(std::string("9.0"));
  packer.pack(std::string("zz_flag"));
  packer.pack(true);
  const std::string frame =
      encode_frame(MessageType::kHello, 8, std::string(buffer.data(), buffer.size()));

  DecodeError error;
  const auto envelope = decode_envelope(frame, error);
  ASSERT_TRUE(envelope) << error.message;
  const auto hello = decode_payload<Hello>(*envelope, error);
  ASSERT_TRUE(hello) << error.code << ": " << error.message;
  EXPECT_EQ(hello->cluster, "east");
  EXPECT_EQ(hello->agent_version, "9.0");
  EXPECT_TRUE(hello->labels.empty());
}

// An older peer omits keys; they keep their defaults.
TEST(ForwardCompatibility, MissingKeysKeepTheirDefaults) {
  const std::map<std::string, std::string> only_name{{"name", "j"}};
  const std::map<std::string, std::map<std::string, std::string>> only_job_name{{"job", only_name}};
  const std::string frame = encode_frame(MessageType::kPrepare, 2, packed(only_job_name));
  DecodeError error;
  const auto envelope = decode_envelope(frame, error);
  ASSERT_TRUE(envelope);
  const auto prepare = decode_payload<Prepare>(*envelope, error);
  ASSERT_TRUE(prepare) << error.message;
  EXPECT_EQ(prepare->job.name, "j");
  EXPECT_EQ(prepare->job.queue, "default");
  EXPECT_EQ(prepare->job.max_retry, 3);
  EXPECT_EQ(prepare->dispatch_id, 0u);
  EXPECT_EQ(prepare->parts, 1) << "a one-part dispatch unless said otherwise";
}

}  // namespace
}  // namespace gantry::protocol
