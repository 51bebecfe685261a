// JSON shapes shared by every -o json view: resource maps in natural units,
// timestamps, and the document text gantryctl prints.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "protocol/messages.hpp"

namespace gantry::console {

// Keys stay in the order they are written, which is the order documented.
using Json = nlohmann::ordered_json;

// {"cpu": 1.5, "memory": 17179869184, "nvidia.com/gpu": 8}: milli-units / 1000.
Json resources_json(const protocol::ResourceList& resources);
// RFC 3339 in UTC ("2024-05-01T08:00:00.123Z"), or null for 0 (not yet).
Json timestamp_json(std::int64_t unix_ms);

// OCM AddOnPlacementScore scores under the names OCM's resource-usage-collect
// addon gives them ({"cpuNodeAvailable": 40, ..., "validUntil": "..."}), or
// null when the agent sent none (valid_until_ms 0).
Json ocm_scores_json(const protocol::PlacementScores& scores);

// `json` indented by two spaces, ending in a newline. Bytes that are not
// valid UTF-8 become U+FFFD, so the output stays valid JSON whatever a peer sent.
std::string json_text(const Json& json);

// A JSON array of `item_json(item)` for each of `items`, as json_text prints it.
template <class Item, class ItemJson>
std::string json_array_text(const std::vector<Item>& items, ItemJson item_json) {
  Json json = Json::array();
  for (const Item& item : items) json.push_back(item_json(item));
  return json_text(json);
}

// The RFC 3339 text timestamp_json writes; "" for 0.
std::string format_timestamp(std::int64_t unix_ms);

}  // namespace gantry::console
