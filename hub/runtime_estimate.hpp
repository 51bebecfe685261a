// How long runs take against their time limits, learned from the runs that
// ended (EASY++ in Tsafrir, Etsion and Feitelson's terms: users' limits are
// loose, so a backfill plan made from them waits for nodes that free much
// earlier, and every early end is refilled by jobs that end before the plan).
// Plans may use the expected runtime instead; the limit still bounds the run
// and still decides which jobs may use a reservation's held resources.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gantry::hub {

// What backfill plans take a run's end to be.
enum class PlannedRuntimes : std::uint8_t {
  kLimits,   // its time limit: a reserved job starts no later than planned
  kLearned,  // its queue's expected runtime (RuntimeEstimate)
};

// "limits" / "learned", as gantry-hub --planned-runtimes and gantry-sim take them.
std::optional<PlannedRuntimes> parse_planned_runtimes(std::string_view text);
std::string_view planned_runtimes_name(PlannedRuntimes runtimes);

class RuntimeEstimate {
 public:
  // A run of `runtime_ms` under a limit of `limit_ms` (> 0) ended.
  void observe(std::int64_t runtime_ms, std::int64_t limit_ms);
  // What a run under `limit_ms` is expected to take: the limit times the mean
  // fraction of their limits that ended runs took, at least 1 ms; the limit
  // itself until a run has ended.
  std::int64_t expected_runtime(std::int64_t limit_ms) const;
  // The mean fraction (0, 1]; 1 before any run ended.
  double fraction() const;
  std::int64_t runs() const { return runs_; }

 private:
  double fraction_sum_ = 0;
  std::int64_t runs_ = 0;
};

}  // namespace gantry::hub
