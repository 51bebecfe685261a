// Prometheus' side of the hub while the benchmark runs (--scrape-ms): a thread
// that GETs the hub's /metrics every interval, as a scraper would, so that the
// hub's CPU per job can be compared with and without scraping.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

namespace gantry::bench::e2e {

struct ScrapeCounters {
  std::uint64_t scrapes = 0;     // answered 200
  std::uint64_t failures = 0;    // anything else (no answer, not 200)
  std::uint64_t last_bytes = 0;  // the last answer's body
  double slowest_ms = 0;         // the slowest answer
};

class Scraper {
 public:
  // Starts scraping http://127.0.0.1:`port`/metrics every `interval`.
  Scraper(std::uint16_t port, std::chrono::milliseconds interval);
  ~Scraper();  // stop()
  Scraper(const Scraper&) = delete;
  Scraper& operator=(const Scraper&) = delete;

  ScrapeCounters stop();

 private:
  void run();

  std::uint16_t port_;
  std::chrono::milliseconds interval_;
  std::atomic<bool> stopping_{false};
  ScrapeCounters counters_;
  std::thread thread_;
};

}  // namespace gantry::bench::e2e
