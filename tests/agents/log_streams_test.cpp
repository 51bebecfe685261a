// gantryctl logs on the agent: a stream sends a replica's log file in order,
// from its tail when asked, keeps reading with -f while the job runs, and
// ends once the job no longer runs and the file is read to its end.
#include "agents/log_streams.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace gantry::agents {
namespace {

class LogStreamsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("gantry-log-streams-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    file_ = dir_ / "worker-0.log";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void append(const std::string& text) {
    std::ofstream out(file_, std::ios::app | std::ios::binary);
    out << text;
  }

  protocol::LogsRequest request(bool follow, std::int32_t tail = -1) {
    protocol::LogsRequest asked;
    asked.job = "train";
    asked.task = "worker";
    asked.follow = follow;
    asked.tail_lines = tail;
    asked.stream = 7;
    return asked;
  }

  LogStreams::Send sender() {
    return [this](const protocol::LogsChunk& chunk) { sent_.push_back(chunk); };
  }

  std::string data() const {
    std::string text;
    for (const auto& chunk : sent_) text += chunk.data;
    return text;
  }

  std::filesystem::path dir_;
  std::filesystem::path file_;
  std::vector<protocol::LogsChunk> sent_;
  bool runs_ = true;
  LogStreams::Runs runs() {
    return [this](const std::string& job) { return job == "train" && runs_; };
  }
};

TEST_F(LogStreamsTest, WithoutFollowSendsTheWholeFileThenEnds) {
  append("one\ntwo\n");
  LogStreams streams;
  streams.open(request(false), file_, "", 0, sender());
  ASSERT_EQ(streams.next_poll(), std::optional<hub::TimeMs>(0));
  streams.poll(0, runs(), sender());
  EXPECT_EQ(data(), "one\ntwo\n");
  ASSERT_FALSE(sent_.empty());
  EXPECT_TRUE(sent_.back().end);
  EXPECT_EQ(sent_.back().error, "");
  EXPECT_EQ(sent_.back().stream, 7u);
  EXPECT_EQ(streams.size(), 0u);
  EXPECT_FALSE(streams.next_poll());
}

TEST_F(LogStreamsTest, TailStartsAtTheLastLines) {
  append("one\ntwo\nthree\n");
  EXPECT_EQ(tail_offset(file_, 2), 4u);
  EXPECT_EQ(tail_offset(file_, 3), 0u);
  EXPECT_EQ(tail_offset(file_, 10), 0u);
  EXPECT_EQ(tail_offset(file_, 0), 14u);
  append("partial");  // a last line without its newline yet counts as a line
  EXPECT_EQ(tail_offset(file_, 1), 14u);
  EXPECT_EQ(tail_offset(file_, 2), 8u);

  LogStreams streams;
  streams.open(request(false, 1), file_, "", 0, sender());
  streams.poll(0, runs(), sender());
  EXPECT_EQ(data(), "partial");
}

TEST_F(LogStreamsTest, FollowKeepsReadingWhileTheJobRunsAndEndsAfterTheLastBytes) {
  append("step 1\n");
  LogStreams streams;
  streams.open(request(true), file_, "", 0, sender());
  streams.poll(0, runs(), sender());
  EXPECT_EQ(data(), "step 1\n");
  EXPECT_FALSE(sent_.back().end);
  // Nothing new: it waits until the next read, without sending.
  const std::size_t before = sent_.size();
  ASSERT_EQ(streams.next_poll(), std::optional<hub::TimeMs>(LogStreams::kPollMs));
  streams.poll(LogStreams::kPollMs, runs(), sender());
  EXPECT_EQ(sent_.size(), before);

  append("step 2\n");
  runs_ = false;  // it ended after writing: what it wrote is still sent
  streams.poll(2 * LogStreams::kPollMs, runs(), sender());
  EXPECT_EQ(data(), "step 1\nstep 2\n");
  EXPECT_TRUE(sent_.back().end);
  EXPECT_EQ(streams.size(), 0u);
}

TEST_F(LogStreamsTest, AQuietFollowedStreamSendsKeepalives) {
  append("x\n");
  LogStreams streams;
  streams.open(request(true), file_, "", 0, sender());
  streams.poll(0, runs(), sender());
  const std::size_t before = sent_.size();
  streams.poll(protocol::kWatchKeepaliveMs, runs(), sender());
  ASSERT_EQ(sent_.size(), before + 1);
  EXPECT_EQ(sent_.back().data, "");
  EXPECT_FALSE(sent_.back().end);
}

TEST_F(LogStreamsTest, ALargeLogIsSentInBoundedChunksOverSeveralPolls) {
  const std::size_t size = (LogStreams::kChunksPerPoll + 1) * protocol::kMaxLogChunkBytes + 5;
  append(std::string(size, 'a'));
  LogStreams streams;
  streams.open(request(false), file_, "", 0, sender());
  streams.poll(0, runs(), sender());
  EXPECT_EQ(sent_.size(), LogStreams::kChunksPerPoll);
  for (const auto& chunk : sent_) EXPECT_LE(chunk.data.size(), protocol::kMaxLogChunkBytes);
  EXPECT_EQ(streams.next_poll(), std::optional<hub::TimeMs>(0));  // more to read at once
  streams.poll(0, runs(), sender());
  EXPECT_EQ(data().size(), size);
  EXPECT_TRUE(sent_.back().end);
}

TEST_F(LogStreamsTest, MissingLogsAndTheStreamLimitEndWithAnError) {
  LogStreams streams;
  streams.open(request(false), std::nullopt, "this cluster's executor keeps no replica logs", 0,
               sender());
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_TRUE(sent_[0].end);
  EXPECT_EQ(sent_[0].error, "this cluster's executor keeps no replica logs");

  streams.open(request(false), dir_ / "none.log", "", 0, sender());
  EXPECT_EQ(sent_.back().error, "replica worker-0 has not written a log yet");

  append("x\n");
  for (std::size_t i = 0; i < LogStreams::kMaxStreams; ++i) {
    protocol::LogsRequest asked = request(true);
    asked.stream = 100 + i;
    streams.open(asked, file_, "", 0, sender());
  }
  EXPECT_EQ(streams.size(), LogStreams::kMaxStreams);
  streams.open(request(true), file_, "", 0, sender());
  EXPECT_NE(sent_.back().error.find("its limit"), std::string::npos) << sent_.back().error;
  streams.stop(100);
  EXPECT_EQ(streams.size(), LogStreams::kMaxStreams - 1);
}

}  // namespace
}  // namespace gantry::agents
