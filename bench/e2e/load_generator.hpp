// The load generator: one DEALER on the hub's admin socket, as gantryctl, but
// pipelined: up to `window` SubmitJobRequests in flight, each reply matched to
// its request by seq (seq = job index + 1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "bench/e2e/timeline.hpp"
#include "protocol/messages.hpp"

namespace gantry::bench::e2e {

struct LoadOptions {
  std::uint32_t window = 64;
  double rate = 0;              // per second; 0 = send whenever the window allows
  double reply_timeout_s = 30;  // give up when the hub stays silent this long
};

struct LoadResult {
  // Frames answered ok / refused / not at all. A SubmitJobsReply is ok when
  // the request was taken; its jobs count on their own.
  std::uint32_t acked = 0;
  std::uint32_t refused = 0;
  std::uint32_t unanswered = 0;
  std::string first_error;
  std::uint32_t jobs_acked = 0;  // jobs acknowledged, one per SubmitJobReply that is ok
};

class LoadGenerator {
 public:
  explicit LoadGenerator(const std::string& admin_endpoint);

  // Asks `get clusters` until `expected` clusters are ready or `timeout_s`
  // passes; returns how many were ready last time.
  std::uint32_t wait_clusters_ready(std::uint32_t expected, double timeout_s);
  // Sends every frame (frames[i] carries seq i + 1), recording send and ack
  // times in `timeline`. Frames are encoded by the caller, before the clock
  // starts: the generator should cost the machine little while the hub is
  // measured.
  LoadResult run(const std::vector<std::string>& frames, const LoadOptions& options,
                 Timeline& timeline);
  // Lists every job the hub knows (`get jobs`); nullopt when it does not answer.
  std::optional<std::vector<protocol::JobInfo>> list_jobs(double timeout_s);

 private:
  std::uint32_t ready_clusters();
  // Sends `request` with a fresh seq and returns the decoded reply to it.
  template <class Reply, class Request>
  std::optional<Reply> ask(const Request& request, double timeout_s);
  void receive_replies(Timeline& timeline, LoadResult& result, std::uint32_t& in_flight);

  zmq::context_t context_{1};
  zmq::socket_t socket_;
  std::uint64_t probe_seq_ = 1ull << 40;  // far above any job's seq
};

}  // namespace gantry::bench::e2e
