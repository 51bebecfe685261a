// Frames from the network are untrusted: every byte string either decodes or
// yields a DecodeError; none crashes, throws out of the API or trips ASan/UBSan.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "protocol/envelope.hpp"
#include "tests/protocol/sample_messages.hpp"

namespace gantry::protocol {
namespace {

template <class List>
struct Codec;

template <class... Messages>
struct Codec<MessageList<Messages...>> {
  // Decodes the payload as whatever type the envelope names; true if it decoded.
  static bool decode_as_named_type(const Envelope& envelope, DecodeError& error) {
    bool decoded = false;
    ((envelope.type == MessageTypeOf<Messages>::value &&
      (decoded = decode_payload<Messages>(envelope, error).has_value())),
     ...);
    return decoded;
  }
  static std::vector<std::string> sample_frames() {
    std::uint64_t seq = 1;
    return {encode(testing::sample<Messages>(), seq++)...};
  }
};

using All = Codec<AllMessages>;  // every entry of protocol/message_table.hpp

enum class Outcome { kDecoded, kEnvelopeError, kPayloadError };

// The whole receive path as a peer runs it. Any exception fails the test.
Outcome receive(const std::string& frame) {
  DecodeError error;
  const auto envelope = decode_envelope(frame, error);
  if (!envelope) {
    EXPECT_FALSE(error.code.empty());
    return Outcome::kEnvelopeError;
  }
  if (All::decode_as_named_type(*envelope, error)) return Outcome::kDecoded;
  EXPECT_FALSE(error.code.empty());
  return Outcome::kPayloadError;
}

TEST(Robustness, EveryTruncatedFrameIsAnError) {
  for (const std::string& frame : All::sample_frames()) {
    ASSERT_EQ(receive(frame), Outcome::kDecoded);
    for (std::size_t length = 0; length < frame.size(); ++length) {
      SCOPED_TRACE("prefix of " + std::to_string(length) + "/" + std::to_string(frame.size()));
      Outcome outcome{};
      EXPECT_NO_THROW(outcome = receive(frame.substr(0, length)));
      EXPECT_EQ(outcome, Outcome::kEnvelopeError);
    }
  }
}

TEST(Robustness, RandomByteStringsNeverCrash) {
  std::mt19937_64 random(20240501);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<std::size_t> length(0, 96);
  for (int i = 0; i < 4000; ++i) {
    std::string garbage(length(random), '\0');
    for (char& c : garbage) c = static_cast<char>(byte(random));
    // Half start like a real envelope so the fuzzing reaches the payload decoder.
    if (i % 2 == 0 && garbage.size() > 4) garbage.replace(0, 4, "\x94\x01\x01\x00", 4);
    EXPECT_NO_THROW(receive(garbage)) << "input #" << i;
  }
}

TEST(Robustness, RandomMutationsOfValidFramesNeverCrash) {
  std::mt19937_64 random(7);
  const std::vector<std::string> frames = All::sample_frames();
  int decoded = 0, refused = 0;
  for (int i = 0; i < 6000; ++i) {
    std::string frame = frames[i % frames.size()];
    const int edits = 1 + static_cast<int>(random() % 4);
    for (int e = 0; e < edits && !frame.empty(); ++e) {
      const std::size_t at = random() % frame.size();
      switch (random() % 4) {
        case 0:
          frame[at] = static_cast<char>(random());
          break;  // overwrite
        case 1:
          frame[at] = static_cast<char>(frame[at] ^ (1 << (random() % 8)));
          break;  // bit flip
        case 2:
          frame.erase(at, 1 + random() % 8);
          break;  // delete
        default:
          frame.insert(at, 1 + random() % 4, static_cast<char>(random()));  // insert
      }
    }
    Outcome outcome{};
    EXPECT_NO_THROW(outcome = receive(frame)) << "mutation #" << i;
    (outcome == Outcome::kDecoded ? decoded : refused)++;
  }
  // Both paths must have been exercised, or the mutations test nothing.
  EXPECT_GT(decoded, 0);
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace gantry::protocol
