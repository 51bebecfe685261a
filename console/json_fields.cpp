#include "console/json_fields.hpp"

#include <cstdio>
#include <ctime>

#include "hub/ocm_score.hpp"
#include "support/rfc3339.hpp"

namespace gantry::console {

namespace {

// Whole amounts (memory in bytes, GPU counts) stay exact integers; a fraction
// (cpu 1.5) is the double nearest to milli_to_decimal's exact decimal, which
// prints as that decimal up to 15 significant digits.
Json natural_units(std::int64_t milli) {
  if (milli % 1000 == 0) return milli / 1000;
  return static_cast<double>(milli) / 1000.0;
}

}  // namespace

Json resources_json(const protocol::ResourceList& resources) {
  Json json = Json::object();
  for (const auto& [name, milli] : resources) json[name] = natural_units(milli);
  return json;
}

Json timestamp_json(std::int64_t unix_ms) {
  if (unix_ms == 0) return nullptr;
  return format_timestamp(unix_ms);
}

Json ocm_scores_json(const protocol::PlacementScores& scores) {
  if (scores.valid_until_ms == 0) return nullptr;
  Json json = Json::object();
  for (const auto& [name, value] : hub::named_ocm_scores(scores)) json[name] = value;
  json["validUntil"] = timestamp_json(scores.valid_until_ms);
  return json;
}

std::string json_text(const Json& json) {
  return json.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string format_timestamp(std::int64_t unix_ms) {
  if (unix_ms == 0) return "";
  std::string text = support::rfc3339_utc_ms(unix_ms);
  return text.empty() ? std::to_string(unix_ms) + "ms" : text;  // a year gmtime cannot hold
}

}  // namespace gantry::console
