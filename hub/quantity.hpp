// Kubernetes resource quantities ("500m", "10Gi", "2", "1.5", "1e3") to and
// from milli-units.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gantry::hub {

// Parses a quantity into milli-units. Throws std::invalid_argument with a
// message naming the text when it is not a valid non-negative quantity.
std::int64_t parse_quantity_milli(std::string_view text);

// Formats milli-units for people: cpu as cores or millicores ("500m", "4"),
// memory with binary suffixes where exact ("16Gi"), counts as integers.
std::string format_quantity(std::string_view resource_name, std::int64_t milli);

}  // namespace gantry::hub
