// Every wire message survives encode -> decode_envelope -> decode_payload with
// every field intact, and the samples really do set every field.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "protocol/envelope.hpp"
#include "tests/protocol/sample_messages.hpp"

namespace gantry::protocol {
namespace {

using testing::sample;

msgpack::object_handle unpack_payload(const std::string& payload) {
  return msgpack::unpack(payload.data(), payload.size());
}

// Walks the encoded sample and the encoded default side by side: a key whose
// value equals the default's means the sample left that field unset, so the
// round trip would not prove the field is carried. Nested maps are walked too.
void expect_every_key_differs(const msgpack::object& filled, const msgpack::object& empty,
                              const std::string& path) {
  ASSERT_EQ(filled.type, msgpack::type::MAP) << path;
  ASSERT_EQ(empty.type, msgpack::type::MAP) << path;
  ASSERT_EQ(filled.via.map.size, empty.via.map.size) << path;
  for (std::uint32_t i = 0; i < filled.via.map.size; ++i) {
    const msgpack::object_kv& a = filled.via.map.ptr[i];
    const msgpack::object_kv& b = empty.via.map.ptr[i];
    const std::string key = path + "." + a.key.as<std::string>();
    ASSERT_EQ(a.key, b.key) << path;
    EXPECT_NE(a.val, b.val) << key << " is left at its default in the sample";
    if (a.val.type == msgpack::type::MAP && b.val.type == msgpack::type::MAP &&
        b.val.via.map.size > 0) {
      expect_every_key_differs(a.val, b.val, key);
    }
  }
}

template <class T>
void expect_sample_sets_every_field(const T& filled, const std::string& name) {
  const auto filled_handle = unpack_payload(encode_payload(filled));
  const auto empty_handle = unpack_payload(encode_payload(T{}));
  expect_every_key_differs(filled_handle.get(), empty_handle.get(), name);
}

template <class T>
class RoundTrip : public ::testing::Test {};

// Every entry of protocol/message_table.hpp; one without a sample fails to link.
template <class... Messages>
::testing::Types<Messages...> gtest_types(MessageList<Messages...>);
using EveryMessage = decltype(gtest_types(AllMessages{}));

template <class... Messages>
constexpr int message_count(MessageList<Messages...>) {
  return sizeof...(Messages);
}
TYPED_TEST_SUITE(RoundTrip, EveryMessage);

TYPED_TEST(RoundTrip, EveryFieldSurvivesAndSeqIsPreserved) {
  const TypeParam original = sample<TypeParam>();
  for (const std::uint64_t seq : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1} << 32,
                                  std::numeric_limits<std::uint64_t>::max()}) {
    SCOPED_TRACE("seq " + std::to_string(seq));
    const std::string frame = encode(original, seq);

    DecodeError error;
    const auto envelope = decode_envelope(frame, error);
    ASSERT_TRUE(envelope) << error.code << ": " << error.message;
    EXPECT_EQ(envelope->version, kProtocolVersion);
    EXPECT_EQ(envelope->type, MessageTypeOf<TypeParam>::value);
    EXPECT_EQ(envelope->seq, seq);

    const auto decoded = decode_payload<TypeParam>(*envelope, error);
    ASSERT_TRUE(decoded) << error.code << ": " << error.message;
    EXPECT_EQ(*decoded, original);  // defaulted operator==: member by member
  }
}

TYPED_TEST(RoundTrip, SampleSetsEveryFieldToANonDefaultValue) {
  expect_sample_sets_every_field(sample<TypeParam>(),
                                 std::string(message_type_name(MessageTypeOf<TypeParam>::value)));
}

// Structs that only appear inside vectors are not reached by walking maps.
TEST(RoundTripSamples, NestedStructsInVectorsSetEveryField) {
  const JobSpec spec = testing::sample_job_spec();
  expect_sample_sets_every_field(spec.tasks.at(0), "TaskSpec");
  expect_sample_sets_every_field(spec.tasks.at(0).containers.at(0), "ContainerSpec");
  expect_sample_sets_every_field(spec.tasks.at(0).containers.at(0).env.at(0), "EnvVar");
  expect_sample_sets_every_field(testing::sample_task_status("t"), "TaskStatus");
  expect_sample_sets_every_field(spec.tasks.at(0).tolerations.at(0), "Toleration");
  expect_sample_sets_every_field(testing::sample_node("n"), "NodeUsage");
  expect_sample_sets_every_field(testing::sample_node("n").taints.at(0), "Taint");
  expect_sample_sets_every_field(testing::sample_job_info(), "JobInfo");
  expect_sample_sets_every_field(testing::sample_cluster_info(), "ClusterInfo");
  expect_sample_sets_every_field(testing::sample_queue_info(), "QueueInfo");
  expect_sample_sets_every_field(testing::sample_priority_class_info(), "PriorityClassInfo");
}

// The suites above cover AllMessages; every known type number must be in it.
TEST(RoundTripSamples, EveryKnownMessageTypeIsCovered) {
  int known = 0;
  for (std::uint32_t raw = 0; raw <= 0xFFFF; ++raw) {
    if (is_known_message_type(static_cast<std::uint16_t>(raw))) ++known;
  }
  EXPECT_EQ(known, message_count(AllMessages{}));
}

TEST(RoundTripValues, ExtremeIntegersAndEmptyContainersSurvive) {
  JobInfo info;
  info.priority = std::numeric_limits<std::int32_t>::min();
  info.submitted_ms = std::numeric_limits<std::int64_t>::max();
  info.requests = {{"memory", std::numeric_limits<std::int64_t>::max()}, {"cpu", -1}};
  // JobInfo has no message type of its own: carry it inside a ListReply.
  ListReply reply;
  reply.jobs = {info};
  DecodeError error;
  const auto reply_envelope = decode_envelope(encode(reply, 5), error);
  ASSERT_TRUE(reply_envelope);
  const auto decoded = decode_payload<ListReply>(*reply_envelope, error);
  ASSERT_TRUE(decoded) << error.message;
  ASSERT_EQ(decoded->jobs.size(), 1u);
  EXPECT_EQ(decoded->jobs[0], info);
  EXPECT_TRUE(decoded->clusters.empty());
}

}  // namespace
}  // namespace gantry::protocol
