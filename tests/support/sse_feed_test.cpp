// support/sse_feed.hpp with fake streams: a new stream gets the document at
// once, changes are sent, sameness is not (but a keepalive is), and a stream
// that ended is dropped.
#include "support/sse_feed.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gantry::support {
namespace {

class FakeStream : public HttpStream {
 public:
  bool send(std::string text) override {
    const std::lock_guard lock(mutex_);
    ++attempts_;
    if (ended_) return false;
    sent_.push_back(std::move(text));
    return true;
  }
  void close() override { end(); }
  std::vector<std::string> sent() {
    const std::lock_guard lock(mutex_);
    return sent_;
  }
  int attempts() {
    const std::lock_guard lock(mutex_);
    return attempts_;
  }
  void end() {
    const std::lock_guard lock(mutex_);
    ended_ = true;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> sent_;
  bool ended_ = false;
  int attempts_ = 0;
};

// Polls `done` until it holds or 10 s passed.
template <class Done>
bool eventually(Done done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

class SseFeedTest : public ::testing::Test {
 protected:
  std::optional<std::string> current() {
    const std::lock_guard lock(mutex_);
    ++asked_;
    return document_;
  }
  void set(std::string document) {
    const std::lock_guard lock(mutex_);
    document_ = std::move(document);
  }
  int asked() {
    const std::lock_guard lock(mutex_);
    return asked_;
  }

  std::mutex mutex_;
  std::string document_ = "{\"a\":1}";
  int asked_ = 0;
};

TEST(SseEvent, EachLineIsADataLine) {
  EXPECT_EQ(sse_event("overview", "{}"), "event: overview\ndata: {}\n\n");
  EXPECT_EQ(sse_event("x", "a\nb"), "event: x\ndata: a\ndata: b\n\n");
}

TEST_F(SseFeedTest, SendsTheDocumentAtOnceThenOnlyChanges) {
  SseFeed feed({"overview", std::chrono::milliseconds(10), std::chrono::hours(1)},
               [this] { return current(); });
  EXPECT_EQ(asked(), 0) << "nobody listens: nothing is asked";
  auto stream = std::make_shared<FakeStream>();
  feed.add(stream);
  ASSERT_TRUE(eventually([&] { return stream->sent().size() == 1; }));
  EXPECT_EQ(stream->sent()[0], "event: overview\ndata: {\"a\":1}\n\n");
  const int before = asked();
  ASSERT_TRUE(eventually([&] { return asked() > before + 3; }));
  EXPECT_EQ(stream->sent().size(), 1u) << "the same document is not sent again";
  set("{\"a\":2}");
  ASSERT_TRUE(eventually([&] { return stream->sent().size() == 2; }));
  EXPECT_EQ(stream->sent()[1], "event: overview\ndata: {\"a\":2}\n\n");
}

TEST_F(SseFeedTest, AQuietStreamGetsKeepalivesAndAnEndedOneIsDropped) {
  SseFeed feed({"overview", std::chrono::milliseconds(10), std::chrono::milliseconds(50)},
               [this] { return current(); });
  auto stream = std::make_shared<FakeStream>();
  auto other = std::make_shared<FakeStream>();
  feed.add(stream);
  feed.add(other);
  ASSERT_TRUE(eventually([&] { return stream->sent().size() >= 3; }));
  EXPECT_EQ(stream->sent()[1], ": keepalive\n\n");
  other->end();
  const int tried = other->attempts();
  const auto sent_before = stream->sent().size();
  ASSERT_TRUE(eventually([&] { return stream->sent().size() >= sent_before + 3; }));
  EXPECT_EQ(other->attempts(), tried + 1) << "one failed send, then the feed forgets it";
  feed.stop();
  const auto sent = stream->sent().size();
  feed.add(std::make_shared<FakeStream>());
  EXPECT_EQ(stream->sent().size(), sent) << "nothing is sent after stop()";
}

}  // namespace
}  // namespace gantry::support
