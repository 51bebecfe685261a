#include "bench/e2e/latency.hpp"

#include <algorithm>
#include <cmath>

namespace gantry::bench::e2e {

namespace {

double nearest_rank_ms(const std::vector<std::int64_t>& sorted_ns, double percent) {
  const double rank = std::ceil(percent / 100.0 * static_cast<double>(sorted_ns.size()));
  const std::size_t index = static_cast<std::size_t>(std::max(rank, 1.0)) - 1;
  return sorted_ns[std::min(index, sorted_ns.size() - 1)] / 1e6;
}

}  // namespace

Percentiles interval_percentiles(const std::vector<std::int64_t>& from,
                                 const std::vector<std::int64_t>& to) {
  std::vector<std::int64_t> intervals;
  intervals.reserve(from.size());
  for (std::size_t i = 0; i < from.size() && i < to.size(); ++i) {
    if (from[i] != 0 && to[i] != 0) intervals.push_back(to[i] - from[i]);
  }
  Percentiles out;
  if (intervals.empty()) return out;
  std::sort(intervals.begin(), intervals.end());
  out.count = static_cast<std::uint32_t>(intervals.size());
  out.p50_ms = nearest_rank_ms(intervals, 50);
  out.p90_ms = nearest_rank_ms(intervals, 90);
  out.p99_ms = nearest_rank_ms(intervals, 99);
  out.max_ms = intervals.back() / 1e6;
  return out;
}

double rate_since_first_submit(const Timeline& timeline, const std::vector<std::int64_t>& at) {
  std::int64_t first = INT64_MAX;
  for (std::int64_t t : timeline.submit_ns) {
    if (t != 0) first = std::min(first, t);
  }
  std::int64_t last = 0;
  std::uint64_t count = 0;
  for (std::int64_t t : at) {
    if (t == 0) continue;
    last = std::max(last, t);
    ++count;
  }
  if (count == 0 || last <= first) return 0;
  return static_cast<double>(count) / ((last - first) / 1e9);
}

}  // namespace gantry::bench::e2e
