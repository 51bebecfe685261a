#include "sim/time_limits.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace gantry::sim {
namespace {

constexpr hub::TimeMs kMinute = 60'000;
constexpr hub::TimeMs kHour = 60 * kMinute;
constexpr hub::TimeMs kDay = 24 * kHour;
constexpr hub::TimeMs kWeek = 7 * kDay;
constexpr hub::TimeMs kRoundValues[] = {
    5 * kMinute, 10 * kMinute, 15 * kMinute, 30 * kMinute, kHour,    2 * kHour, 4 * kHour,
    8 * kHour,   12 * kHour,   kDay,         2 * kDay,     3 * kDay, kWeek};

hub::TimeMs round_up_as_users_do(hub::TimeMs ms) {
  for (hub::TimeMs value : kRoundValues)
    if (ms <= value) return value;
  return (ms + kWeek - 1) / kWeek * kWeek;
}

}  // namespace

std::optional<TimeLimitModel> parse_time_limit_model(std::string_view text) {
  TimeLimitModel model;
  if (text == "exact") {
    model.kind = TimeLimitModel::Kind::kExact;
    return model;
  }
  if (text == "trace-random") {
    model.kind = TimeLimitModel::Kind::kTraceRandom;
    return model;
  }
  if (text.size() < 2 || text[0] != 'x') return std::nullopt;
  const std::string number(text.substr(1));
  try {
    std::size_t used = 0;
    model.factor = std::stod(number, &used);
    if (used != number.size() || !(model.factor >= 1.0) || model.factor > 1000) return std::nullopt;
  } catch (const std::logic_error&) {
    return std::nullopt;
  }
  model.kind = TimeLimitModel::Kind::kFactor;
  return model;
}

std::string time_limit_model_name(const TimeLimitModel& model) {
  switch (model.kind) {
    case TimeLimitModel::Kind::kNone:
      return "none";
    case TimeLimitModel::Kind::kExact:
      return "exact";
    case TimeLimitModel::Kind::kTraceRandom:
      return "trace-random";
    case TimeLimitModel::Kind::kFactor:
      break;
  }
  char text[32];
  std::snprintf(text, sizeof text, "x%g", model.factor);
  return text;
}

hub::TimeMs draw_limit_ms(const TimeLimitModel& model, hub::TimeMs duration_ms,
                          std::mt19937_64& rng) {
  constexpr hub::TimeMs kAtLeast = 1000;
  switch (model.kind) {
    case TimeLimitModel::Kind::kNone:
      return 0;
    case TimeLimitModel::Kind::kExact:
      return std::max(kAtLeast, duration_ms);
    case TimeLimitModel::Kind::kFactor:
      return std::max(kAtLeast, static_cast<hub::TimeMs>(std::ceil(duration_ms * model.factor)));
    case TimeLimitModel::Kind::kTraceRandom: {
      const double factor =
          std::exp(std::uniform_real_distribution<double>(0, std::log(10.0))(rng));
      return round_up_as_users_do(
          std::max(kAtLeast, static_cast<hub::TimeMs>(std::ceil(duration_ms * factor))));
    }
  }
  return 0;
}

}  // namespace gantry::sim
