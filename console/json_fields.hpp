// JSON shapes shared by every -o json view: resource maps in natural units,
// string maps, string arrays and timestamps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "console/json_writer.hpp"
#include "protocol/messages.hpp"

namespace gantry::console {

// {"cpu": 1.5, "memory": 17179869184, "nvidia.com/gpu": 8}: milli-units / 1000.
void write_resources(JsonWriter& json, const protocol::ResourceList& resources);
void write_labels(JsonWriter& json, const protocol::Labels& labels);
void write_strings(JsonWriter& json, const std::vector<std::string>& strings);
// RFC 3339 in UTC ("2024-05-01T08:00:00.123Z"), or null for 0 (not yet).
void write_timestamp(JsonWriter& json, std::int64_t unix_ms);

// The RFC 3339 text write_timestamp writes; "" for 0.
std::string format_timestamp(std::int64_t unix_ms);

}  // namespace gantry::console
