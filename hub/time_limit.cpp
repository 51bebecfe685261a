#include "hub/time_limit.hpp"

#include "hub/duration.hpp"
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

}  // namespace gantry::hub
