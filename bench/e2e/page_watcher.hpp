// A browser's side of the hub's web view while the benchmark runs
// (--web-stream): a thread that holds /api/stream open, as an open page does,
// and counts the overview events the hub sends, so that the submit rate can
// be compared with and without a page open (bench/README.md, issue 30).
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace gantry::bench::e2e {

struct PageCounters {
  bool opened = false;       // the stream was answered 200
  std::uint64_t events = 0;  // overview events received
  std::uint64_t bytes = 0;   // everything read from the stream
};

class PageWatcher {
 public:
  // Opens http://127.0.0.1:`port`/api/stream (the hub runs --insecure).
  explicit PageWatcher(std::uint16_t port);
  ~PageWatcher();  // stop()
  PageWatcher(const PageWatcher&) = delete;
  PageWatcher& operator=(const PageWatcher&) = delete;

  PageCounters stop();

 private:
  void run();

  std::uint16_t port_;
  std::atomic<bool> stopping_{false};
  PageCounters counters_;
  std::thread thread_;
};

}  // namespace gantry::bench::e2e
