#include "actors/web_json.hpp"

#include "console/object_json.hpp"

namespace gantry::actors {

namespace {

using console::Json;

template <class Item, class ItemJson>
Json array_of(const std::vector<Item>& items, ItemJson item_json) {
  Json json = Json::array();
  for (const Item& item : items) json.push_back(item_json(item));
  return json;
}

Json overview_cluster_json(const protocol::ClusterInfo& cluster) {
  Json json = console::cluster_json(cluster);
  json.erase("lastSeen");
  return json;
}

// "2024-05-01T08:00:00.123Z placed on east" -> time and text (JobEvents'
// form: the UTC time, a space, what happened).
Json event_json(const std::string& event) {
  const auto space = event.find(' ');
  if (space == std::string::npos) return {{"time", ""}, {"text", event}};
  return {{"time", event.substr(0, space)}, {"text", event.substr(space + 1)}};
}

std::string compact(const Json& json) {
  // Bytes that are not UTF-8 become U+FFFD, as gantryctl prints them.
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

std::string overview_json(const protocol::ListReply& clusters, const protocol::ListReply& queues,
                          const protocol::ListReply& jobs) {
  Json json;
  json["clusters"] = array_of(clusters.clusters, overview_cluster_json);
  json["queues"] = array_of(queues.queues, console::queue_json);
  json["jobs"] = array_of(jobs.jobs, console::job_json);
  return compact(json);
}

std::string job_page_json(const protocol::DescribeReply& reply) {
  Json json;
  json["job"] = console::job_json(reply.job);
  json["events"] = array_of(reply.events, event_json);
  return compact(json);
}

}  // namespace gantry::actors
