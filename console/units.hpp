// Wire quantities are milli-units (see protocol/messages.hpp); people and
// scripts want natural units. These conversions are the only place that knows.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/messages.hpp"

namespace gantry::console {

// Milli-units as an exact decimal in natural units: cpu 1500 -> "1.5" (cores),
// memory 1024000 -> "1024" (bytes), nvidia.com/gpu 8000 -> "8". Exact for every
// int64, unlike a double, so large memory sizes keep every byte.
std::string milli_to_decimal(std::int64_t milli);

// "cpu=1500m,memory=16Gi,nvidia.com/gpu=8" (hub::format_quantity per entry), or
// "<none>" when the list is empty. `separator` goes between entries.
std::string format_resources(const protocol::ResourceList& resources,
                             std::string_view separator = ",");

// One style per resource for every table and description: the exact quantity
// (hub::format_quantity: "2304Gi", "1500m", "250m", "8") while it has at most
// four digits, else rounded where an exact value would be noise (a water-
// filled share of 614.4Gi, not 659706976665600m): memory and storage in the
// largest binary unit with one decimal, cpu in cores with one decimal
// ("33.3"); GPUs and other counts whole, else with one decimal ("13.3").
std::string format_quantity_readable(std::string_view resource, std::int64_t milli);
// format_resources with format_quantity_readable per entry.
std::string format_resources_readable(const protocol::ResourceList& resources,
                                      std::string_view separator = ",");

// "allocated/capacity" of one resource in human units, e.g. "48Gi/512Gi".
std::string format_usage(std::string_view resource, const protocol::ResourceList& allocated,
                         const protocol::ResourceList& capacity);

// True for accelerator resources shown in the GPU column ("nvidia.com/gpu",
// "amd.com/gpu", "gpu").
bool is_gpu_resource(std::string_view name);

// Sum of every GPU resource in the list, in milli-units.
std::int64_t total_gpu_milli(const protocol::ResourceList& resources);

}  // namespace gantry::console
