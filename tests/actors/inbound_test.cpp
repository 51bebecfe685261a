#include "actors/inbound.hpp"

#include <gtest/gtest.h>

namespace gantry::actors {
namespace {

TEST(InboundTest, DecodesAnAgentMessageWithPeerAndSeq) {
  std::uint64_t seq = 0;
  protocol::DecodeError error;
  const auto message = decode_inbound(
      Channel::kAgents, "agent/east",
      protocol::encode(protocol::Hello{"east", {}, "1", {{3, "job", {}, 0, 1, true}}, {}}, 9), seq,
      error);
  ASSERT_TRUE(message) << error.message;
  EXPECT_EQ(message->peer, "agent/east");
  EXPECT_EQ(message->seq, 9u);
  ASSERT_TRUE(std::holds_alternative<protocol::Hello>(message->body));
  ASSERT_EQ(std::get<protocol::Hello>(message->body).running.size(), 1u);
  EXPECT_EQ(std::get<protocol::Hello>(message->body).running[0].dispatch_id, 3u);
}

TEST(InboundTest, GarbageIsABadFrame) {
  std::uint64_t seq = 1;
  protocol::DecodeError error;
  EXPECT_FALSE(decode_inbound(Channel::kAdmin, "c", "\xc1garbage", seq, error));
  EXPECT_EQ(error.code, "bad_frame");
  EXPECT_EQ(seq, 0u);
}

TEST(InboundTest, AdminRequestOnTheAgentSocketIsRefusedWithItsSeq) {
  std::uint64_t seq = 0;
  protocol::DecodeError error;
  EXPECT_FALSE(decode_inbound(Channel::kAgents, "a",
                              protocol::encode(protocol::ListRequest{"jobs"}, 5), seq, error));
  EXPECT_EQ(error.code, "unexpected_type");
  EXPECT_NE(error.message.find("agents"), std::string::npos) << error.message;
  EXPECT_EQ(seq, 5u);
}

TEST(InboundTest, HubToAgentMessageIsNotAcceptedByTheHub) {
  std::uint64_t seq = 0;
  protocol::DecodeError error;
  EXPECT_FALSE(
      decode_inbound(Channel::kAgents, "a", protocol::encode(protocol::Prepare{}, 2), seq, error));
  EXPECT_EQ(error.code, "unexpected_type");
}

TEST(InboundTest, AgentMessageOnTheAdminSocketIsRefusedAndAConsoleRequestThereDecodes) {
  std::uint64_t seq = 0;
  protocol::DecodeError error;
  EXPECT_FALSE(decode_inbound(Channel::kAdmin, "c",
                              protocol::encode(protocol::Admit{1, "j", 0, "", 0}, 6), seq, error));
  EXPECT_EQ(error.code, "unexpected_type");
  EXPECT_NE(error.message.find("admin"), std::string::npos) << error.message;
  const auto message = decode_inbound(
      Channel::kAdmin, "c", protocol::encode(protocol::DeleteRequest{"queue", "q"}, 7), seq, error);
  ASSERT_TRUE(message) << error.message;
  EXPECT_EQ(std::get<protocol::DeleteRequest>(message->body),
            (protocol::DeleteRequest{"queue", "q"}));
}

TEST(InboundTest, PayloadOfTheWrongShapeIsABadPayload) {
  std::uint64_t seq = 0;
  protocol::DecodeError error;
  const std::string frame = protocol::encode_frame(
      protocol::MessageType::kHeartbeat, 4, protocol::encode_payload(std::string("not a map")));
  EXPECT_FALSE(decode_inbound(Channel::kAgents, "a", frame, seq, error));
  EXPECT_EQ(error.code, "bad_payload");
  EXPECT_EQ(seq, 4u);
}

}  // namespace
}  // namespace gantry::actors
