// Rates and latency percentiles from a Timeline.
#pragma once

#include <cstdint>
#include <vector>

#include "bench/e2e/timeline.hpp"

namespace gantry::bench::e2e {

struct Percentiles {
  std::uint32_t count = 0;
  double p50_ms = 0;
  double p90_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
};

// Nearest-rank percentiles of `to[i] - from[i]` over the jobs where both are set.
Percentiles interval_percentiles(const std::vector<std::int64_t>& from,
                                 const std::vector<std::int64_t>& to);

// Events per second from the first submission to the last time in `at`.
double rate_since_first_submit(const Timeline& timeline, const std::vector<std::int64_t>& at);

}  // namespace gantry::bench::e2e
