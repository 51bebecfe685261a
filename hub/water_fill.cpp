#include "hub/water_fill.hpp"

#include <algorithm>

namespace gantry::hub {

namespace {

// pool * weight / total without overflowing: a memory pool in milli-units
// times a weight up to 65535 does not fit 64 bits.
std::int64_t part_of(std::int64_t pool, std::int64_t weight, std::int64_t total) {
  return pool / total * weight + pool % total * weight / total;
}

}  // namespace

std::int64_t water_fill(std::span<WaterFillShare> shares, std::int64_t pool) {
  while (pool > 0) {
    std::int64_t total_weight = 0;
    for (const WaterFillShare& s : shares)
      if (s.share < s.limit) total_weight += s.weight;
    if (total_weight == 0) break;
    std::int64_t given = 0;
    for (WaterFillShare& s : shares) {
      if (s.share >= s.limit) continue;
      const std::int64_t add = std::min(part_of(pool, s.weight, total_weight), s.limit - s.share);
      s.share += add;
      given += add;
    }
    if (given == 0) break;  // only crumbs below the total weight are left
    pool -= given;
  }
  return pool;
}

}  // namespace gantry::hub
