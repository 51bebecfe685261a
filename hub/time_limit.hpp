// Job time limits as Slurm has them per partition: a queue may give its jobs a
// default limit and cap what they ask for.
#pragma once

#include <cstdint>
#include <string>

#include "hub/queue_spec.hpp"

namespace gantry::hub {

inline constexpr const char* kTimeLimitAnnotation = "gantry.io/time-limit";
inline constexpr const char* kDefaultTimeLimitAnnotation = "gantry.io/default-time-limit";
inline constexpr const char* kMaxTimeLimitAnnotation = "gantry.io/max-time-limit";

// The limit a job runs under (0 = none): what it asked (`requested_ms` >= 0),
// else the queue's default, else the queue's maximum. Throws FieldError
// naming `field` (empty: the gantry.io/time-limit annotation) when it asks
// more than the queue's maximum.
std::int64_t resolve_time_limit(std::int64_t requested_ms, const QueueSpec& queue,
                                const std::string& field = {});

}  // namespace gantry::hub
