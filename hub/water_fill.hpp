// Water-filling: Volcano's proportion plugin, for one resource. A pool is
// shared by weight; whoever needs less than its part keeps only what it
// needs, and the rest is shared again among the others by weight, round after
// round, until everyone is satisfied or the pool is spent.
#pragma once

#include <cstdint>
#include <span>

namespace gantry::hub {

struct WaterFillShare {
  std::int64_t weight = 1;  // > 0
  std::int64_t limit = 0;   // the most `share` may reach
  std::int64_t share = 0;   // in: what it already has; out: plus its part of the pool
};

// Adds to each share its weighted part of `pool`, none past its limit.
// Returns what no one could take (the pool left over, including rounding
// crumbs smaller than the total weight). Each round fills at least one share
// or spends the pool, so it ends within shares.size() + 1 rounds.
std::int64_t water_fill(std::span<WaterFillShare> shares, std::int64_t pool);

}  // namespace gantry::hub
