// What the hub's I/O thread and store actor measure for Prometheus
// (docs/metrics.md): admin requests by command and result with their latency
// (request read -> answer sent), and the store's commit time. The I/O thread,
// the store actor and the HTTP thread share it: one mutex, held briefly.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "support/prometheus_text.hpp"

namespace gantry::actors {

class HubIoMetrics {
 public:
  using Clock = std::chrono::steady_clock;

  HubIoMetrics();

  // An admin request the hub's actors will answer.
  void requested(const std::string& peer, std::uint64_t seq, std::string_view command,
                 Clock::time_point at);
  // Its answer left: `result` is "ok", "refused" (the hub said no) or "error".
  void answered(const std::string& peer, std::uint64_t seq, std::string_view result,
                Clock::time_point at);
  // A request refused before it reached the actors ("forbidden" by the
  // key's role): counted, no latency.
  void refused(std::string_view command, std::string_view result);
  // One group commit of `writes` writes, and how long it took.
  void committed(double seconds, std::size_t writes);

  void render(support::PrometheusText& out) const;

 private:
  struct Pending {
    std::string command;
    Clock::time_point at;
  };
  // Requests awaiting their answer; past this many, new ones are counted when
  // answered but not timed (a client that never reads cannot grow it).
  static constexpr std::size_t kMostPending = 65'536;

  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::uint64_t>, Pending> pending_;
  std::map<std::pair<std::string, std::string>, std::uint64_t> requests_;  // (command, result)
  std::map<std::string, support::Histogram> latency_;                      // by command
  support::Histogram commit_seconds_;
  std::uint64_t committed_writes_ = 0;
};

}  // namespace gantry::actors
