// The decoder's limits (config/input_limits.hpp, protocol/envelope.cpp): a
// small frame cannot make the decoder allocate for counts it does not carry,
// nor nest deeper than convert() should recurse; each refusal names the limit.
#include <gtest/gtest.h>

#include <string>

#include "config/input_limits.hpp"
#include "protocol/envelope.hpp"

namespace gantry::protocol {
namespace {

Envelope hello_envelope(std::string payload) {
  Envelope envelope;
  envelope.type = MessageType::kHello;
  envelope.seq = 7;
  envelope.payload = std::move(payload);
  return envelope;
}

std::string hello_error(std::string payload) {
  DecodeError error;
  const auto hello = decode_payload<Hello>(hello_envelope(std::move(payload)), error);
  EXPECT_FALSE(hello.has_value());
  EXPECT_EQ(error.code, "bad_payload");
  EXPECT_EQ(error.seq, 7u);
  return error.message;
}

TEST(DecoderLimits, DeepNestingIsRefusedNamingTheLimit) {
  // 10,000 nested one-element arrays: 10 KB that convert() would recurse through.
  const std::string deep = std::string(10'000, '\x91') + '\xc0';
  EXPECT_EQ(hello_error(deep), "Hello: nesting over the limit of " +
                                   std::to_string(config::kMaxMsgpackDepth) + " levels");
}

TEST(DecoderLimits, NestingWithinTheLimitDecodes) {
  std::string nested(config::kMaxMsgpackDepth, '\x91');
  nested += '\xc0';
  std::size_t offset = 0;
  EXPECT_NO_THROW(detail::unpack_bounded(nested, offset));
  EXPECT_EQ(offset, nested.size());
}

TEST(DecoderLimits, CountsLargerThanTheFrameAreRefusedBeforeAllocating) {
  // array32 / map32 headers claiming 4 billion elements in 5 bytes: msgpack
  // would allocate them on reading the count.
  EXPECT_EQ(hello_error("\xdd\xff\xff\xff\xff"), "Hello: an array over the limit of 5 elements");
  EXPECT_EQ(hello_error("\xdf\xff\xff\xff\xff"), "Hello: a map over the limit of 5 entries");
  // str32 / bin32: msgpack checks the bytes are there before copying them.
  EXPECT_EQ(hello_error("\xdb\xff\xff\xff\xff"), "Hello: insufficient bytes");
  EXPECT_EQ(hello_error("\xc6\xff\xff\xff\xff"), "Hello: insufficient bytes");
}

TEST(DecoderLimits, CountsAboveTheItemLimitAreRefusedEvenWhenTheBytesArePresent) {
  const std::uint32_t count = config::kMaxMsgpackItems + 1;
  std::string payload = "\xdd";
  for (int shift : {24, 16, 8, 0}) payload += static_cast<char>((count >> shift) & 0xff);
  payload += std::string(count, '\xc0');
  EXPECT_EQ(hello_error(payload), "Hello: an array over the limit of " +
                                      std::to_string(config::kMaxMsgpackItems) + " elements");
}

TEST(DecoderLimits, AFrameWithADeepPayloadStillHasAReadableHeader) {
  const std::string frame =
      encode_frame(MessageType::kHello, 9, std::string(10'000, '\x91') + '\xc0');
  DecodeError error;
  const auto envelope = decode_envelope(frame, error);
  ASSERT_TRUE(envelope.has_value()) << error.message;
  EXPECT_FALSE(decode_payload<Hello>(*envelope, error).has_value());
  EXPECT_EQ(error.seq, 9u);  // so the refusal answers the right request
}

}  // namespace
}  // namespace gantry::protocol
