#include "hub/time_limit.hpp"

#include "hub/field_error.hpp"

namespace gantry::hub {

std::int64_t resolve_time_limit(std::int64_t requested_ms, const QueueSpec& queue,
                                const std::string& field) {
  if (requested_ms < 0)
    return queue.default_time_limit_ms > 0 ? queue.default_time_limit_ms : queue.max_time_limit_ms;
  if (queue.max_time_limit_ms > 0 && (requested_ms == 0 || requested_ms > queue.max_time_limit_ms))
    throw FieldError(
        field.empty() ? std::string("metadata.annotations.") + kTimeLimitAnnotation : field,
        requested_ms == 0 ? "none" : format_duration(requested_ms),
        "queue \"" + queue.name + "\" allows at most " + format_duration(queue.max_time_limit_ms));
  return requested_ms;
}

std::string format_duration(std::int64_t ms) {
  if (ms <= 0) return "0s";
  std::string text;
  const std::int64_t hours = ms / 3'600'000;
  const std::int64_t minutes = ms / 60'000 % 60;
  const std::int64_t seconds = ms / 1000 % 60;
  const std::int64_t millis = ms % 1000;
  if (hours) text += std::to_string(hours) + "h";
  if (minutes) text += std::to_string(minutes) + "m";
  if (seconds) text += std::to_string(seconds) + "s";
  if (millis) text += std::to_string(millis) + "ms";
  return text;
}

}  // namespace gantry::hub
