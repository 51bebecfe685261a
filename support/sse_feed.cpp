#include "support/sse_feed.hpp"

#include <utility>

namespace gantry::support {

std::string sse_event(const std::string& event, const std::string& text) {
  std::string framed = "event: " + event + "\n";
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = text.find('\n', start);
    framed += "data: " + text.substr(start, end - start) + "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return framed + "\n";
}

SseFeed::SseFeed(SseFeedOptions options, Source source)
    : options_(std::move(options)), source_(std::move(source)), thread_([this] { run(); }) {}

SseFeed::~SseFeed() {
  stop();
}

void SseFeed::add(std::shared_ptr<HttpStream> stream) {
  {
    const std::lock_guard lock(mutex_);
    if (stopping_) return;
    joining_.push_back(std::move(stream));
  }
  wake_.notify_one();  // it gets the document now, not at the next poll
}

void SseFeed::stop() {
  {
    const std::lock_guard lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
  streams_.clear();
  joining_.clear();
}

void SseFeed::run() {
  std::optional<std::string> last;  // the document last sent
  auto quiet_since = std::chrono::steady_clock::now();
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    // Nobody listening: nothing to ask, and the next listener gets a fresh one.
    if (streams_.empty() && joining_.empty()) {
      last.reset();
      wake_.wait(lock, [this] { return stopping_ || !joining_.empty(); });
      continue;
    }
    std::vector<std::shared_ptr<HttpStream>> joined = std::move(joining_);
    joining_.clear();
    lock.unlock();  // the source may take a while (it asks the scheduler)
    const std::optional<std::string> now = source_();
    lock.lock();
    const auto at = std::chrono::steady_clock::now();
    if (now && now != last) {
      last = now;
      broadcast(sse_event(options_.event, *now));
      quiet_since = at;
    } else if (at - quiet_since >= options_.keepalive) {
      broadcast(": keepalive\n\n");
      quiet_since = at;
    }
    // With no document yet (the source did not answer), a new stream gets
    // the first one there is, as a change.
    for (auto& stream : joined) {
      if (!last || stream->send(sse_event(options_.event, *last))) streams_.push_back(stream);
    }
    wake_.wait_for(lock, options_.poll, [this] { return stopping_ || !joining_.empty(); });
  }
}

void SseFeed::broadcast(const std::string& text) {
  std::erase_if(streams_, [&text](const auto& stream) { return !stream->send(text); });
}

}  // namespace gantry::support
