#include "config/volcano_queue.hpp"

#include <set>

#include "config/kube_names.hpp"
#include "config/yaml_fields.hpp"
#include "hub/duration.hpp"
#include "hub/field_error.hpp"
#include "hub/job_request.hpp"
#include "hub/placement_policy.hpp"
#include "hub/quantity.hpp"
#include "hub/time_limit.hpp"

namespace gantry::config {

using hub::FieldError;

namespace {

constexpr const char* kApiVersion = "scheduling.volcano.sh/v1beta1";

const std::set<std::string> kTopFields{"apiVersion", "kind", "metadata", "spec", "status"};
const std::set<std::string> kMetadataFields{"name", "labels", "annotations"};
// Accepted Volcano fields Gantry does not act on: affinity, type, extendClusters.
const std::set<std::string> kSpecFields{"weight",  "capability", "deserved", "guarantee", "reclaimable",
                                        "parent",  "priority",   "dequeueStrategy", "state", "affinity",
                                        "type",    "extendClusters"};

hub::ResourceBound read_bound(const YAML::Node& node, const std::string& field) {
  hub::ResourceBound bound;
  if (!node || node.IsNull()) return bound;
  require_map(node, field);
  for (const auto& entry : node) {
    const std::string name = entry.first.as<std::string>();
    const std::string item = field + "." + name;
    const std::string text = scalar_text(entry.second, item);
    std::int64_t milli = 0;
    try {
      milli = hub::parse_quantity_milli(text);
    } catch (const std::invalid_argument&) {
      throw FieldError(item, text, "is not a valid non-negative quantity");
    }
    try {
      bound.set(hub::ResourceNames::intern(name), milli);
    } catch (const std::length_error& e) {
      throw FieldError(item, text, e.what());
    }
  }
  return bound;
}

bool read_bool(const YAML::Node& parent, const std::string& key, const std::string& field, bool fallback) {
  const YAML::Node node = parent[key];
  if (!node || node.IsNull()) return fallback;
  const std::string text = scalar_text(node, field + "." + key);
  if (text == "true") return true;
  if (text == "false") return false;
  throw FieldError(field + "." + key, text, "must be true or false");
}

// A duration annotation (hub::parse_duration_ms); 0 when absent.
std::int64_t read_duration(const protocol::Labels& annotations, const std::string& key) {
  const auto found = annotations.find(key);
  if (found == annotations.end()) return 0;
  try {
    return hub::parse_duration_ms(found->second);
  } catch (const std::invalid_argument& e) {
    throw FieldError("metadata.annotations." + key, found->second, e.what());
  }
}

// Slurm's partition DefaultTime / MaxTime: a default above the maximum would
// give the queue's jobs a limit the queue itself refuses.
std::int64_t read_time_limit(const protocol::Labels& annotations, const std::string& key) {
  const std::int64_t ms = read_duration(annotations, key);
  if (ms > hub::kMaxTimeLimitMs)
    throw FieldError("metadata.annotations." + key, annotations.at(key),
                     std::string("must be at most ") + hub::kMaxTimeLimitText);
  return ms;
}

void read_time_limits(const protocol::Labels& annotations, hub::QueueSpec& queue) {
  queue.default_time_limit_ms = read_time_limit(annotations, hub::kDefaultTimeLimitAnnotation);
  queue.max_time_limit_ms = read_time_limit(annotations, hub::kMaxTimeLimitAnnotation);
  if (queue.max_time_limit_ms > 0 && queue.default_time_limit_ms > queue.max_time_limit_ms)
    throw FieldError(std::string("metadata.annotations.") + hub::kDefaultTimeLimitAnnotation,
                     annotations.at(hub::kDefaultTimeLimitAnnotation),
                     std::string("exceeds ") + hub::kMaxTimeLimitAnnotation + " (" +
                         annotations.at(hub::kMaxTimeLimitAnnotation) + ")");
}

// Closing is how Volcano shows a queue asked to close that still has jobs;
// applied, it asks the same: no new jobs (get queues shows Closing, then Closed).
bool read_open(const std::string& text, const std::string& field) {
  if (text.empty() || text == "Open") return true;
  if (text == "Closed" || text == "Closing") return false;
  throw FieldError(field, text, "must be Open, Closing or Closed");
}

// Volcano's spec.extendClusters: [{name, weight, capacity}], kept as
// "name weight=W capacity=..." for describe.
std::vector<std::string> read_extend_clusters(const YAML::Node& node) {
  std::vector<std::string> out;
  if (!node || node.IsNull()) return out;
  require_sequence(node, "spec.extendClusters");
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string field = "spec.extendClusters[" + std::to_string(i) + "]";
    require_map(node[i], field);
    reject_unknown(node[i], {"name", "weight", "capacity"}, field);
    const std::string name = optional_string(node[i], "name", field);
    if (name.empty()) throw FieldError(field + ".name", "", "is required");
    std::string text = name;
    const std::int32_t weight = optional_int(node[i], "weight", field, 0);
    if (weight < 0) throw FieldError(field + ".weight", std::to_string(weight), "must not be negative");
    if (node[i]["weight"]) text += " weight=" + std::to_string(weight);
    const hub::ResourceBound capacity = read_bound(node[i]["capacity"], field + ".capacity");
    for (hub::ResourceId r = 0; r < hub::kMaxResources; ++r)
      if (capacity.has(r))
        text += " " + hub::ResourceNames::name(r) + "=" +
                hub::format_quantity(hub::ResourceNames::name(r), capacity.value.get(r));
    out.push_back(std::move(text));
  }
  return out;
}

// Volcano's spec.affinity (nodeGroupAffinity / nodeGroupAntiAffinity, each
// required / preferred DuringSchedulingIgnoredDuringExecution lists of node
// group names), kept in flow style for describe.
std::string read_affinity(const YAML::Node& node) {
  if (!node || node.IsNull()) return "";
  require_map(node, "spec.affinity");
  reject_unknown(node, {"nodeGroupAffinity", "nodeGroupAntiAffinity"}, "spec.affinity");
  for (const char* kind : {"nodeGroupAffinity", "nodeGroupAntiAffinity"}) {
    const YAML::Node terms = node[kind];
    if (!terms || terms.IsNull()) continue;
    const std::string field = std::string("spec.affinity.") + kind;
    require_map(terms, field);
    reject_unknown(terms,
                   {"requiredDuringSchedulingIgnoredDuringExecution",
                    "preferredDuringSchedulingIgnoredDuringExecution"},
                   field);
    for (const auto& entry : terms) string_list(entry.second, field + "." + entry.first.as<std::string>());
  }
  YAML::Emitter flow;
  flow << YAML::Flow << node;
  return flow.c_str();
}

void read_spec(const YAML::Node& spec, hub::QueueSpec& queue) {
  require_map(spec, "spec");
  // Volcano's DRA quotas count ResourceClaim devices per DeviceClass; Gantry
  // schedules device-plugin resources, so it says how to write the same quota.
  if (spec["dra"])
    throw hub::FieldError("spec.dra", "",
                          "Volcano's DRA quotas (devices per DeviceClass) are not scheduled by "
                          "Gantry; give devices as extended resources in spec.capability, "
                          "spec.deserved or spec.guarantee.resource, e.g. "
                          "guarantee: {resource: {nvidia.com/gpu: 8}}");
  reject_unknown(spec, kSpecFields, "spec");
  queue.weight = optional_int(spec, "weight", "spec", 1);
  queue.priority = optional_int(spec, "priority", "spec", 0);
  queue.capability = read_bound(spec["capability"], "spec.capability");
  queue.deserved = read_bound(spec["deserved"], "spec.deserved");
  if (const YAML::Node guarantee = spec["guarantee"]) {
    require_map(guarantee, "spec.guarantee");
    for (const auto& entry : guarantee) {
      const std::string key = entry.first.as<std::string>();
      if (key != "resource")
        throw hub::FieldError("spec.guarantee." + key, "",
                              "unknown field; a guarantee lists its resources under resource: "
                              "(spec.guarantee.resource." +
                                  key + ")");
    }
    queue.guarantee = read_bound(guarantee["resource"], "spec.guarantee.resource");
  }
  queue.reclaimable = read_bool(spec, "reclaimable", "spec", true);
  queue.parent = optional_string(spec, "parent", "spec");
  if (queue.parent.empty()) queue.parent = "root";
  const std::string strategy = optional_string(spec, "dequeueStrategy", "spec");
  if (strategy == "fifo") queue.strategy = hub::QueueStrategy::kStrictFifo;
  else if (strategy.empty() || strategy == "traverse") queue.strategy = hub::QueueStrategy::kBestEffortFifo;
  else throw FieldError("spec.dequeueStrategy", strategy, "must be fifo or traverse");
  queue.open = read_open(optional_string(spec, "state", "spec"), "spec.state");
  queue.extend_clusters = read_extend_clusters(spec["extendClusters"]);
  queue.affinity = read_affinity(spec["affinity"]);
}

}  // namespace

hub::QueueSpec parse_volcano_queue(std::string_view yaml) try {
  const YAML::Node root = load_document(yaml);
  reject_unknown(root, kTopFields, "");
  const std::string api_version = optional_string(root, "apiVersion", "");
  if (api_version != kApiVersion) throw FieldError("apiVersion", api_version, std::string("must be ") + kApiVersion);
  const std::string kind = optional_string(root, "kind", "");
  if (kind != "Queue") throw FieldError("kind", kind, "must be Queue");
  hub::QueueSpec queue;
  const YAML::Node metadata = root["metadata"];
  if (!metadata) throw FieldError("metadata.name", "", "is required");
  require_map(metadata, "metadata");
  reject_unknown(metadata, kMetadataFields, "metadata");
  queue.name = optional_string(metadata, "name", "metadata");
  check_dns_subdomain("metadata.name", queue.name);
  // root is Volcano's top queue: applying it sets the pool's capability,
  // guarantee and deserved (its weight and parent mean nothing).
  const protocol::Labels annotations = string_map(metadata["annotations"], "metadata.annotations");
  check_annotations(annotations, "metadata.annotations");
  queue.sla_waiting_ms = read_duration(annotations, "sla-waiting-time");
  read_time_limits(annotations, queue);
  if (auto placement = annotations.find("gantry.io/placement"); placement != annotations.end()) {
    if (hub::find_placement_policy(placement->second) == nullptr)
      throw FieldError("metadata.annotations.gantry.io/placement", placement->second,
                       "expected one of " + hub::placement_policy_names());
    queue.placement = placement->second;
  }
  if (auto member = annotations.find("gantry.io/member-queue"); member != annotations.end())
    queue.member_queue = member->second;
  if (const YAML::Node spec = root["spec"]) read_spec(spec, queue);
  if (const YAML::Node status = root["status"]; status && status.IsMap())
    if (status["state"]) queue.open = read_open(optional_string(status, "state", "status"), "status.state");
  return queue;
} catch (const YAML::Exception& error) {
  // A node used as the wrong kind past the typed accessors: still a FieldError.
  throw yaml_exception_error(error);
}

}  // namespace gantry::config
