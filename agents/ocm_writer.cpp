#include "agents/ocm_writer.hpp"

#include <time.h>

#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "config/bounded_json.hpp"
#include "hub/cluster_state.hpp"
#include "hub/ocm_score.hpp"
#include "support/rfc3339.hpp"
#include "support/text_excerpt.hpp"

namespace gantry::agents {

namespace {

using json = nlohmann::json;

constexpr const char* kScoreApi = "/apis/cluster.open-cluster-management.io/v1alpha1";

hub::ClusterState cluster_of(const std::vector<protocol::NodeUsage>& nodes) {
  std::vector<hub::NodeSpec> specs;
  specs.reserve(nodes.size());
  for (const protocol::NodeUsage& node : nodes) {
    specs.push_back(hub::NodeSpec{node.name, node.labels,
                                  hub::ResourceVector::from_list(node.allocatable),
                                  hub::ResourceVector::from_list(node.allocated)});
  }
  hub::ClusterState cluster("local");
  cluster.set_nodes(specs);
  return cluster;
}

json score_items(const protocol::PlacementScores& scores) {
  json items = json::array();
  for (const auto& [name, value] : hub::named_ocm_scores(scores))
    items.push_back({{"name", name}, {"value", value}});
  return items;
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// metav1.Condition semantics: lastTransitionTime moves only when the status
// changes, so a steady writer keeps the time it first became True.
std::string transition_time(const json& existing_status) {
  const auto conditions = existing_status.find("conditions");
  if (conditions == existing_status.end() || !conditions->is_array()) {
    return format_rfc3339_seconds(now_ms());
  }
  for (const json& condition : *conditions) {
    if (condition.value("type", json()) == kOcmScoreUpdatedCondition &&
        condition.value("status", json()) == "True" &&
        condition.value("lastTransitionTime", json()).is_string()) {
      return condition["lastTransitionTime"].get<std::string>();
    }
  }
  return format_rfc3339_seconds(now_ms());
}

json status_of(const protocol::PlacementScores& scores, const json& existing_status) {
  const json condition = {{"type", kOcmScoreUpdatedCondition},
                          {"status", "True"},
                          {"reason", kOcmScoreUpdatedCondition},
                          {"message", "AddOnPlacementScore updated successfully"},
                          {"lastTransitionTime", transition_time(existing_status)}};
  return json{{"conditions", json::array({condition})},
              {"scores", score_items(scores)},
              {"validUntil", format_rfc3339_seconds(scores.valid_until_ms)}};
}

}  // namespace

protocol::PlacementScores placement_scores(const std::vector<protocol::NodeUsage>& nodes,
                                           std::int64_t now_ms, std::int64_t validity_ms) {
  const hub::OcmScores ocm = hub::ocm_scores(cluster_of(nodes));
  protocol::PlacementScores scores;
  scores.cpu_node_available = ocm.cpu_node_available;
  scores.cpu_cluster_available = ocm.cpu_cluster_available;
  scores.mem_node_available = ocm.mem_node_available;
  scores.mem_cluster_available = ocm.mem_cluster_available;
  scores.gpu_node_available = ocm.gpu_node_available;
  scores.gpu_cluster_available = ocm.gpu_cluster_available;
  scores.valid_until_ms = now_ms + validity_ms;
  return scores;
}

std::string format_rfc3339_seconds(std::int64_t unix_ms) {
  return support::rfc3339_utc_ms(unix_ms, support::SecondFraction::kNone);
}

OcmScoreWriter::OcmScoreWriter(kube::Client& client, std::string namespace_name, std::string name)
    : client_(client), namespace_(std::move(namespace_name)), name_(std::move(name)) {
  if (namespace_.empty()) throw std::invalid_argument("AddOnPlacementScore namespace is empty");
  if (name_.empty()) throw std::invalid_argument("AddOnPlacementScore name is empty");
}

std::string OcmScoreWriter::object_path() const {
  return std::string(kScoreApi) + "/namespaces/" + namespace_ + "/addonplacementscores/" + name_;
}

void OcmScoreWriter::write(const protocol::PlacementScores& scores) {
  if (scores.valid_until_ms <= 0) {
    // An absent validUntil means "never expires" to OCM: refuse rather than
    // publish scores that would outlive this agent.
    throw std::invalid_argument("PlacementScores.valid_until_ms: " +
                                std::to_string(scores.valid_until_ms) + " (scores not computed)");
  }
  if (write_once(scores)) return;
  if (write_once(scores)) return;
  throw std::runtime_error("AddOnPlacementScore " + namespace_ + "/" + name_ + " on " +
                           client_.server() + ": conflict on two writes in a row");
}

// False on a conflict (worth a fresh read); throws on any other failure.
bool OcmScoreWriter::write_once(const protocol::PlacementScores& scores) {
  const auto fail = [&](const char* step, const kube::Response& response) {
    return std::runtime_error("AddOnPlacementScore " + namespace_ + "/" + name_ + " on " +
                              client_.server() + ": " + step + " answered " +
                              std::to_string(response.status) + ": " +
                              support::text_excerpt(response.body));
  };
  kube::Response current = client_.get(object_path());
  if (current.status == 404) {
    const json object = {{"apiVersion", "cluster.open-cluster-management.io/v1alpha1"},
                         {"kind", "AddOnPlacementScore"},
                         {"metadata", {{"name", name_}, {"namespace", namespace_}}},
                         {"status", status_of(scores, json::object())}};
    current =
        client_.post(std::string(kScoreApi) + "/namespaces/" + namespace_ + "/addonplacementscores",
                     object.dump());
    if (current.status == 409) return false;  // created meanwhile by another writer
    if (!current.ok()) throw fail("POST", current);
  } else if (!current.ok()) {
    throw fail("GET", current);
  }
  json object = config::parse_bounded_json(current.body, "AddOnPlacementScore");
  const json existing_status = object.value("status", json::object());
  object["status"] =
      status_of(scores, existing_status.is_object() ? existing_status : json::object());
  const kube::Response updated = client_.put(object_path() + "/status", object.dump());
  if (updated.status == 409) return false;
  if (!updated.ok()) throw fail("PUT status", updated);
  return true;
}

}  // namespace gantry::agents
