// A server-sent events feed of one changing document (the hub's web view
// overview, docs/web.md): a thread of its own asks `source` about once a
// `poll` while someone listens, and sends the document to every open stream
// when it changed ("event: NAME" + "data:" lines); a new stream gets the
// current one at once. A comment line every `keepalive` keeps proxies from
// closing an idle stream and lets the server notice a client that left.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/http_server.hpp"

namespace gantry::support {

struct SseFeedOptions {
  std::string event = "message";  // the events' name
  std::chrono::milliseconds poll{1000};
  std::chrono::milliseconds keepalive{15000};
};

// `text` as one server-sent event: "event: NAME\ndata: LINE\n...\n\n".
std::string sse_event(const std::string& event, const std::string& text);

class SseFeed {
 public:
  // nullopt from `source`: no answer this time (nothing is sent).
  using Source = std::function<std::optional<std::string>()>;

  SseFeed(SseFeedOptions options, Source source);
  ~SseFeed();  // stop()
  SseFeed(const SseFeed&) = delete;
  SseFeed& operator=(const SseFeed&) = delete;

  // A stream to feed until its send() answers false.
  void add(std::shared_ptr<HttpStream> stream);
  // Joins the thread; later adds are dropped. Idempotent.
  void stop();

 private:
  void run();
  // Sends `text` to every stream, forgetting those that ended.
  void broadcast(const std::string& text);

  const SseFeedOptions options_;
  const Source source_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<std::shared_ptr<HttpStream>> streams_;
  std::vector<std::shared_ptr<HttpStream>> joining_;  // to get the current document
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace gantry::support
