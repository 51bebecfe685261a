// The ceiling this machine puts on any ZeroMQ request/reply service: a ROUTER
// that echoes every frame (no decoding, no work) and a DEALER client over
// loopback TCP, as the hub's admin socket and the load generator.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gantry::bench::e2e {

struct RawEchoResult {
  double pipelined_per_s = 0;  // `window` round trips in flight, as the load generator
  double ping_pong_per_s = 0;  // one at a time: the latency-bound rate
  double ping_pong_p50_us = 0;
  std::size_t bytes = 0;
  std::uint32_t window = 0;
};

// `messages` pipelined round trips, then messages / 20 one at a time.
RawEchoResult measure_raw_echo(std::uint32_t messages, std::uint32_t window, std::size_t bytes);

}  // namespace gantry::bench::e2e
