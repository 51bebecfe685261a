// When each job was submitted, acknowledged, first prepared (a fake cluster
// got a Prepare: the job reached an agent) and committed (a fake cluster got
// the Commit of its dispatch: the moment replicas may start), on one
// steady clock (all three are observed in this process). Each vector has a single
// writer thread; they are read only after those threads are joined.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

namespace gantry::bench::e2e {

inline std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Timeline {
  explicit Timeline(std::uint32_t jobs)
      : submit_ns(jobs, 0), ack_ns(jobs, 0), prepare_ns(jobs, 0), commit_ns(jobs, 0) {}

  std::vector<std::int64_t> submit_ns;      // load generator thread
  std::vector<std::int64_t> ack_ns;         // load generator thread; 0 = refused or unanswered
  std::vector<std::int64_t> prepare_ns;     // fake cluster thread; first Prepare only
  std::vector<std::int64_t> commit_ns;      // fake cluster thread; first Commit only
  std::atomic<std::uint32_t> committed{0};  // how many commit_ns are set
};

}  // namespace gantry::bench::e2e
