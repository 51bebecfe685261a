// gantryctl logs on the agent: a stream sends a replica's log file in order,
// from its tail when asked, keeps reading with -f while the job runs, and
// ends once the job no longer runs and the file is read to its end.
#include "agents/log_streams.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "agents/log_file_source.hpp"

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
  void open(LogStreams& streams, const protocol::LogsRequest& asked,
            const std::filesystem::path& file) {
    streams.open(
        asked, [&](std::string& why) { return open_log_file(asked, file, why); }, 0, sender());
  }
};

// A log that arrives from elsewhere (a pod's, through the API server): what
// has come so far, whether more may, and how it ended.
struct ArrivingLog : LogSource {
  std::string arrived;
  bool finished = false;
  std::string failure;
  bool read(std::string& out, std::size_t max) override {
    if (arrived.empty()) return false;
    const std::size_t size = std::min(max, arrived.size());
    out.append(arrived, 0, size);
    arrived.erase(0, size);
    return true;
  }
  bool more_may_come(bool) const override { return !finished || !arrived.empty(); }
  std::string error() const override { return failure; }
};

TEST_F(LogStreamsTest, WithoutFollowSendsTheWholeFileThenEnds) {
  append("one\ntwo\n");
  LogStreams streams;
  open(streams, request(false), file_);
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
  open(streams, request(false, 1), file_);
  streams.poll(0, runs(), sender());
  EXPECT_EQ(data(), "partial");
}

TEST_F(LogStreamsTest, FollowKeepsReadingWhileTheJobRunsAndEndsAfterTheLastBytes) {
  append("step 1\n");
  LogStreams streams;
  open(streams, request(true), file_);
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
  open(streams, request(true), file_);
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
  open(streams, request(false), file_);
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
  streams.open(
      request(false),
      [](std::string& why) -> std::unique_ptr<LogSource> {
        why = "this cluster's executor keeps no replica logs";
        return nullptr;
      },
      0, sender());
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_TRUE(sent_[0].end);
  EXPECT_EQ(sent_[0].error, "this cluster's executor keeps no replica logs");

  open(streams, request(false), dir_ / "none.log");
  EXPECT_EQ(sent_.back().error, "replica worker-0 has not written a log yet");

  append("x\n");
  for (std::size_t i = 0; i < LogStreams::kMaxStreams; ++i) {
    protocol::LogsRequest asked = request(true);
    asked.stream = 100 + i;
    open(streams, asked, file_);
  }
  EXPECT_EQ(streams.size(), LogStreams::kMaxStreams);
  bool opened = false;
  streams.open(
      request(true),
      [&](std::string&) {
        opened = true;
        return std::unique_ptr<LogSource>();
      },
      0, sender());
  EXPECT_FALSE(opened) << "a stream over the limit opens no source (a pod log's GET)";
  EXPECT_NE(sent_.back().error.find("its limit"), std::string::npos) << sent_.back().error;
  streams.stop(100);
  EXPECT_EQ(streams.size(), LogStreams::kMaxStreams - 1);
}

TEST_F(LogStreamsTest, AnArrivingLogIsSentUntilItsSourceEndsWhateverTheJobDoes) {
  LogStreams streams;
  ArrivingLog* log = nullptr;
  streams.open(
      request(true),
      [&](std::string&) {
        auto source = std::make_unique<ArrivingLog>();
        log = source.get();
        return source;
      },
      0, sender());
  ASSERT_NE(log, nullptr);
  runs_ = false;  // the pod's log says when it ends, not the agent's view of the job
  streams.poll(0, runs(), sender());
  EXPECT_TRUE(sent_.empty());
  EXPECT_EQ(streams.size(), 1u);

  log->arrived = "step 1\n";
  streams.poll(*streams.next_poll(), runs(), sender());
  log->arrived = "step 2\n";
  log->finished = true;
  log->failure = "the API server's log stream broke off";
  streams.poll(*streams.next_poll(), runs(), sender());
  EXPECT_EQ(data(), "step 1\nstep 2\n");
  ASSERT_TRUE(sent_.back().end);
  EXPECT_EQ(sent_.back().error, "the API server's log stream broke off");
  EXPECT_EQ(streams.size(), 0u);
}

}  // namespace
}  // namespace gantry::agents
