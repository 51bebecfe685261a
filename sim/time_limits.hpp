// The time limits replayed jobs declare (gantry-sim --time-limit). The traces
// record how long each job ran, not what its user asked for, so a limit is
// derived from the real duration by one of three models.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "hub/job.hpp"

namespace gantry::sim {

struct TimeLimitModel {
  enum class Kind : std::uint8_t {
    kNone,         // no job has a limit (backfill then has nothing to plan with)
    kExact,        // the limit is the real duration
    kFactor,       // `factor` times the real duration
    kTraceRandom,  // a user's overestimate: see draw_limit_ms
  };
  Kind kind = Kind::kNone;
  double factor = 1.0;
  static constexpr std::uint64_t kDefaultSeed = 20261123;
  std::uint64_t seed = kDefaultSeed;  // kTraceRandom draws, in trace order

  bool any() const { return kind != Kind::kNone; }
};

// "exact", "xF" (F a number >= 1, e.g. x2 or x1.5) or "trace-random"; nullopt
// for anything else.
std::optional<TimeLimitModel> parse_time_limit_model(std::string_view text);
std::string time_limit_model_name(const TimeLimitModel& model);

// The limit of a job that really ran `duration_ms` (0 = none for kNone).
// kTraceRandom: the duration times a factor drawn log-uniformly from [1, 10],
// rounded up to the next value users typically type (5m, 10m, 15m, 30m, 1h,
// 2h, 4h, 8h, 12h, 1d, 2d, 3d, 7d, then whole weeks), as users' requested
// times cluster on a few round values well above what jobs use. Never below
// one second, so a zero-length trace job still has a limit.
hub::TimeMs draw_limit_ms(const TimeLimitModel& model, hub::TimeMs duration_ms,
                          std::mt19937_64& rng);

}  // namespace gantry::sim
