#include "config/inventory.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "config/yaml_fields.hpp"
#include "hub/field_error.hpp"
#include "hub/quantity.hpp"
#include "hub/resources.hpp"
#include "hub/tolerations.hpp"

namespace gantry::config {
namespace {

// A generous bound: a `count` beyond it is a typo, not a cluster.
constexpr std::int64_t kMaxNodeCount = 100000;
constexpr std::int64_t kMilliBytesPerMib = 1024LL * 1024LL * hub::kMilli;

// ------------------------------------------------------------------- YAML

protocol::ResourceList parse_allocatable(const YAML::Node& node, const std::string& field) {
  if (!node) throw hub::FieldError(field, "", "is required");
  require_map(node, field);
  protocol::ResourceList resources;
  for (const auto& entry : node) {
    const std::string name = entry.first.as<std::string>();
    const std::string text = scalar_text(entry.second, field + "." + name);
    try {
      resources[name] = hub::parse_quantity_milli(text);
    } catch (const std::invalid_argument& e) {
      throw hub::FieldError(field + "." + name, text, e.what());
    }
  }
  if (resources.empty()) throw hub::FieldError(field, "", "must list at least one resource");
  return resources;
}

std::int64_t parse_count(const YAML::Node& node, const std::string& field) {
  const std::string text = scalar_text(node, field);
  std::int64_t count = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (ec != std::errc() || end != text.data() + text.size() || count < 1 || count > kMaxNodeCount) {
    throw hub::FieldError(field, text,
                          "must be a whole number from 1 to " + std::to_string(kMaxNodeCount));
  }
  return count;
}

// `taints: [{key, value, effect}]`, as a Kubernetes Node's spec.taints: a key
// and an effect are required. PreferNoSchedule is accepted and dropped, as the
// agent drops it from Kubernetes nodes: it keeps no task off a node.
std::vector<protocol::Taint> parse_taints(const YAML::Node& node, const std::string& field) {
  static const std::set<std::string> kEffects{std::string(hub::kNoSchedule),
                                              std::string(hub::kPreferNoSchedule),
                                              std::string(hub::kNoExecute)};
  std::vector<protocol::Taint> taints;
  if (!node || node.IsNull()) return taints;
  require_sequence(node, field);
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string at = field + "[" + std::to_string(i) + "]";
    require_map(node[i], at);
    reject_unknown(node[i], {"key", "value", "effect"}, at);
    protocol::Taint taint{optional_string(node[i], "key", at),
                          optional_string(node[i], "value", at),
                          optional_string(node[i], "effect", at)};
    if (taint.key.empty()) throw hub::FieldError(at + ".key", "", "is required");
    if (!kEffects.count(taint.effect)) {
      throw hub::FieldError(at + ".effect", taint.effect,
                            "must be NoSchedule, PreferNoSchedule or NoExecute");
    }
    if (hub::repels_pods(taint)) taints.push_back(std::move(taint));
  }
  return taints;
}

protocol::NodeUsage make_node(std::string name, protocol::Labels labels,
                              protocol::ResourceList allocatable,
                              std::vector<protocol::Taint> taints = {}) {
  protocol::NodeUsage node;
  node.name = std::move(name);
  const auto product = labels.find(std::string(hub::kGpuProductLabel));
  if (product != labels.end()) node.gpu_model = product->second;
  node.labels = std::move(labels);
  node.allocatable = std::move(allocatable);
  node.taints = std::move(taints);
  return node;
}

// One `nodes[i]` entry: a named node, or `count` nodes named namePrefix + 0..count-1.
void append_nodes(const YAML::Node& entry, const std::string& field,
                  std::vector<protocol::NodeUsage>& out) {
  require_map(entry, field);
  reject_unknown(entry, {"name", "count", "namePrefix", "labels", "allocatable", "taints"}, field);
  const protocol::Labels labels = string_map(entry["labels"], field + ".labels");
  const std::vector<protocol::Taint> taints = parse_taints(entry["taints"], field + ".taints");
  const protocol::ResourceList allocatable =
      parse_allocatable(entry["allocatable"], field + ".allocatable");

  const bool named = static_cast<bool>(entry["name"]);
  const bool counted = static_cast<bool>(entry["count"]);
  if (named == counted) {
    throw hub::FieldError(field, "", "needs either `name` or `count` with `namePrefix`, not both");
  }
  if (named) {
    if (entry["namePrefix"]) {
      throw hub::FieldError(field + ".namePrefix", "", "only goes with `count`");
    }
    const std::string name = scalar_text(entry["name"], field + ".name");
    if (name.empty()) throw hub::FieldError(field + ".name", "", "must not be empty");
    out.push_back(make_node(name, labels, allocatable, taints));
    return;
  }
  const std::int64_t count = parse_count(entry["count"], field + ".count");
  if (!entry["namePrefix"])
    throw hub::FieldError(field + ".namePrefix", "", "is required with `count`");
  const std::string prefix = scalar_text(entry["namePrefix"], field + ".namePrefix");
  if (prefix.empty()) throw hub::FieldError(field + ".namePrefix", "", "must not be empty");
  for (std::int64_t i = 0; i < count; ++i) {
    out.push_back(make_node(prefix + std::to_string(i), labels, allocatable, taints));
  }
}

// Names must be unique: the agent reports usage per node name.
void refuse_duplicate_names(const std::vector<protocol::NodeUsage>& nodes,
                            const std::vector<std::size_t>& entry_of_node) {
  std::set<std::string_view> seen;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!seen.insert(nodes[i].name).second) {
      throw hub::FieldError("nodes[" + std::to_string(entry_of_node[i]) + "]", nodes[i].name,
                            "repeats a node name");
    }
  }
}

void parse_cluster(const YAML::Node& node, Inventory& inventory) {
  if (!node) return;
  require_map(node, "cluster");
  reject_unknown(node, {"name", "labels"}, "cluster");
  inventory.cluster_name = optional_string(node, "name", "cluster");
  inventory.cluster_labels = string_map(node["labels"], "cluster.labels");
}

// -------------------------------------------------------------------- CSV

const std::vector<std::string_view> kOpenbColumns = {"sn", "cpu_milli", "memory_mib", "gpu",
                                                     "model"};

std::string csv_field_name(std::size_t line, std::size_t column) {
  return "line " + std::to_string(line) + ", column " + std::to_string(column + 1) + " (" +
         std::string(kOpenbColumns[column]) + ")";
}

std::vector<std::string_view> split_csv_line(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(line.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

std::int64_t csv_integer(std::string_view text, std::size_t line, std::size_t column,
                         std::int64_t max) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0 ||
      value > max) {
    throw hub::FieldError(csv_field_name(line, column), std::string(text),
                          "must be a whole number from 0 to " + std::to_string(max));
  }
  return value;
}

protocol::NodeUsage parse_openb_row(const std::vector<std::string_view>& fields, std::size_t line) {
  constexpr std::int64_t kMaxInt = std::numeric_limits<std::int64_t>::max();
  const std::int64_t cpu_milli = csv_integer(fields[1], line, 1, kMaxInt);
  const std::int64_t memory_mib = csv_integer(fields[2], line, 2, kMaxInt / kMilliBytesPerMib);
  const std::int64_t gpus = csv_integer(fields[3], line, 3, kMaxInt / hub::kMilli);
  if (fields[0].empty()) throw hub::FieldError(csv_field_name(line, 0), "", "must not be empty");

  protocol::ResourceList allocatable{{"cpu", cpu_milli},
                                     {"memory", memory_mib * kMilliBytesPerMib}};
  protocol::Labels labels;
  if (gpus > 0) {
    allocatable[std::string(hub::kGpuResourceName)] = gpus * hub::kMilli;
    if (!fields[4].empty()) labels[std::string(hub::kGpuProductLabel)] = std::string(fields[4]);
  }
  return make_node(std::string(fields[0]), std::move(labels), std::move(allocatable));
}

std::string_view strip_carriage_return(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

bool has_extension(const std::string& path, std::string_view extension) {
  return path.size() >= extension.size() &&
         path.compare(path.size() - extension.size(), extension.size(), extension) == 0;
}

}  // namespace

Inventory parse_inventory_yaml(const std::string& text) try {
  const YAML::Node root = load_document(text);
  reject_unknown(root, {"cluster", "nodes"}, "");

  Inventory inventory;
  parse_cluster(root["cluster"], inventory);
  const YAML::Node nodes = root["nodes"];
  if (!nodes) throw hub::FieldError("nodes", "", "is required");
  require_sequence(nodes, "nodes");
  if (nodes.size() == 0) throw hub::FieldError("nodes", "", "must list at least one node");
  std::vector<std::size_t> entry_of_node;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    append_nodes(nodes[i], "nodes[" + std::to_string(i) + "]", inventory.nodes);
    entry_of_node.resize(inventory.nodes.size(), i);
  }
  refuse_duplicate_names(inventory.nodes, entry_of_node);
  return inventory;
} catch (const YAML::Exception& error) {
  // A node used as the wrong kind past the typed accessors: still a FieldError.
  throw yaml_exception_error(error);
}

Inventory parse_openb_csv(const std::string& text) {
  std::istringstream stream(text);
  std::string raw;
  std::size_t line = 0;
  Inventory inventory;
  std::set<std::string, std::less<>> names;
  while (std::getline(stream, raw)) {
    ++line;
    const std::string_view current = strip_carriage_return(raw);
    if (line == 1) {
      if (split_csv_line(current) != kOpenbColumns) {
        throw hub::FieldError("line 1 (header)", std::string(current),
                              "must be sn,cpu_milli,memory_mib,gpu,model");
      }
      continue;
    }
    if (current.empty()) continue;
    const std::vector<std::string_view> fields = split_csv_line(current);
    if (fields.size() != kOpenbColumns.size()) {
      throw hub::FieldError(
          "line " + std::to_string(line), std::string(current),
          "must have 5 comma-separated fields, has " + std::to_string(fields.size()));
    }
    inventory.nodes.push_back(parse_openb_row(fields, line));
    if (!names.insert(inventory.nodes.back().name).second) {
      throw hub::FieldError(csv_field_name(line, 0), inventory.nodes.back().name,
                            "repeats a node name");
    }
  }
  if (line == 0) throw hub::FieldError("line 1 (header)", "", "is missing: the file is empty");
  if (inventory.nodes.empty()) throw hub::FieldError("line 2", "", "no nodes after the header");
  return inventory;
}

Inventory load_inventory(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot read inventory file " + path);
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad()) throw std::runtime_error("cannot read inventory file " + path);
  return has_extension(path, ".csv") ? parse_openb_csv(contents.str())
                                     : parse_inventory_yaml(contents.str());
}

}  // namespace gantry::config
