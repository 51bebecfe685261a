#include "hub/runtime_estimate.hpp"

#include <algorithm>
#include <cmath>

namespace gantry::hub {

std::optional<PlannedRuntimes> parse_planned_runtimes(std::string_view text) {
  if (text == "limits") return PlannedRuntimes::kLimits;
  if (text == "learned") return PlannedRuntimes::kLearned;
  return std::nullopt;
}

std::string_view planned_runtimes_name(PlannedRuntimes runtimes) {
  return runtimes == PlannedRuntimes::kLearned ? "learned" : "limits";
}

void RuntimeEstimate::observe(std::int64_t runtime_ms, std::int64_t limit_ms) {
  if (limit_ms <= 0 || runtime_ms < 0) return;
  // A run ended at its limit took all of it; one past it (ended late) too.
  fraction_sum_ += std::min(1.0, static_cast<double>(runtime_ms) / static_cast<double>(limit_ms));
  ++runs_;
}

double RuntimeEstimate::fraction() const {
  return runs_ == 0 ? 1.0 : fraction_sum_ / static_cast<double>(runs_);
}

std::int64_t RuntimeEstimate::expected_runtime(std::int64_t limit_ms) const {
  if (limit_ms <= 0) return limit_ms;
  const auto expected =
      static_cast<std::int64_t>(std::ceil(fraction() * static_cast<double>(limit_ms)));
  return std::clamp<std::int64_t>(expected, 1, limit_ms);
}

}  // namespace gantry::hub
