#include "karmada/cluster_view.hpp"

#include <map>

#include "hub/field_error.hpp"
#include "hub/resources.hpp"
#include "karmada/binding_job.hpp"
#include "karmada/json_fields.hpp"

namespace gantry::karmada {

using hub::FieldError;
using nlohmann::json;

namespace {

constexpr const char* kSummary = "status.resourceSummary";
constexpr const char* kModelings = "status.resourceSummary.allocatableModelings";

std::string item_path(std::string_view list, std::size_t index) {
  return std::string(list) + "[" + std::to_string(index) + "]";
}

bool is_ready(const json& cluster) {
  const json* conditions = optional_array_at(cluster, "status.conditions");
  if (conditions == nullptr) return false;
  for (std::size_t i = 0; i < conditions->size(); ++i) {
    const std::string path = item_path("status.conditions", i);
    if (optional_string_at((*conditions)[i], "type", path) == "Ready")
      return optional_string_at((*conditions)[i], "status", path) == "True";
  }
  return false;
}

// Grade -> the least free resources a node of that grade has (each range's min).
std::map<std::int64_t, protocol::ResourceList> grade_minimums(const json& cluster) {
  std::map<std::int64_t, protocol::ResourceList> grades;
  const json* models = optional_array_at(cluster, "spec.resourceModels");
  if (models == nullptr) return grades;
  for (std::size_t i = 0; i < models->size(); ++i) {
    const std::string path = item_path("spec.resourceModels", i);
    const std::int64_t grade = int_at((*models)[i], "grade", path);
    protocol::ResourceList& minimums = grades[grade];
    const json* ranges = optional_array_at((*models)[i], "ranges", path);
    if (ranges == nullptr) continue;
    for (std::size_t r = 0; r < ranges->size(); ++r) {
      const std::string range = item_path(path + ".ranges", r);
      const std::string name = string_at((*ranges)[r], "name", range);
      const json* min = find_at((*ranges)[r], "min", range);
      minimums[name] = min == nullptr ? 0 : quantity_milli(*min, range + ".min");
    }
  }
  return grades;
}

// The extended resources (names with a '/', e.g. nvidia.com/gpu) the cluster
// has that some grade does not name, in name order. Karmada's default models
// grade cpu and memory only: a grade node would know nothing of the GPUs and
// hide them from Gantry, so then the summary node counts them.
std::vector<std::string> uncovered_extended_resources(
    const std::map<std::int64_t, protocol::ResourceList>& grades,
    const protocol::ResourceList& summary_allocatable) {
  std::vector<std::string> uncovered;
  for (const auto& [name, milli] : summary_allocatable) {
    if (milli <= 0 || name.find('/') == std::string::npos) continue;
    for (const auto& [grade, minimums] : grades) {
      if (minimums.contains(name)) continue;
      uncovered.push_back(name);
      break;
    }
  }
  return uncovered;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

protocol::NodeUsage synthetic_node(std::string name, const protocol::Labels& labels) {
  protocol::NodeUsage node;
  node.name = std::move(name);
  // Karmada reports no node labels: a task's nodeSelector can only be checked
  // against the cluster's own labels (e.g. nvidia.com/gpu.product on a
  // cluster of one GPU model).
  node.labels = labels;
  if (const auto product = labels.find(std::string(hub::kGpuProductLabel)); product != labels.end())
    node.gpu_model = product->second;
  return node;
}

// AllocatableModeling{grade, count}: Karmada's cluster status controller
// counts, per grade, the member nodes whose *available* resources
// (allocatable minus the requests of the pods bound to the node that have not
// ended) fall in that grade's ranges, i.e. reach at least each range's min.
// So a grade node's allocatable is free capacity, and nothing is allocated.
std::vector<protocol::NodeUsage> graded_nodes(
    const ClusterView& view, const json& modelings,
    const std::map<std::int64_t, protocol::ResourceList>& grades) {
  std::vector<protocol::NodeUsage> nodes;
  for (std::size_t i = 0; i < modelings.size(); ++i) {
    const std::string path = item_path(kModelings, i);
    const std::int64_t grade = int_at(modelings[i], "grade", path);
    const std::int64_t count = int_at(modelings[i], "count", path);
    if (count < 0) throw FieldError(path + ".count", std::to_string(count), "must not be negative");
    const auto model = grades.find(grade);
    if (model == grades.end())
      throw FieldError(path + ".grade", std::to_string(grade),
                       "no spec.resourceModels entry has this grade");
    for (std::int64_t n = 0; n < count; ++n) {
      protocol::NodeUsage node = synthetic_node(
          view.name + "/grade" + std::to_string(grade) + "-" + std::to_string(n), view.labels);
      node.allocatable = model->second;
      nodes.push_back(std::move(node));
    }
  }
  return nodes;
}

protocol::NodeUsage summary_node(const ClusterView& view, const json& cluster) {
  protocol::NodeUsage node = synthetic_node(view.name + "/summary", view.labels);
  node.allocatable = resource_list_at(cluster, "allocatable", kSummary);
  node.allocated = resource_list_at(cluster, "allocated", kSummary);
  for (const auto& [name, milli] : resource_list_at(cluster, "allocating", kSummary))
    node.allocated[name] += milli;
  return node;
}

// Sets view.nodes and view.fit_note together: the note says which of the
// cases below gave the nodes, so that a summary fit (an upper bound) is never
// shown as node-level fit.
void set_nodes(ClusterView& view, const json& cluster) {
  const json* summary = optional_object_at(cluster, kSummary);
  if (summary == nullptr) return;  // no nodes: nothing to fit, nothing to note
  const json* modelings = optional_array_at(cluster, kModelings);
  const auto grades = grade_minimums(cluster);
  if (modelings == nullptr || modelings->empty() || grades.empty()) {
    view.nodes = {summary_node(view, *summary)};
    view.fit_note = kNoModelsNote;
    return;
  }
  const std::vector<std::string> uncovered =
      uncovered_extended_resources(grades, resource_list_at(*summary, "allocatable", kSummary));
  if (!uncovered.empty()) {
    view.nodes = {summary_node(view, *summary)};
    view.fit_note = "resource models do not cover " + joined(uncovered) + ": summary fit";
    return;
  }
  view.nodes = graded_nodes(view, *modelings, grades);
  view.fit_note = "";
}

}  // namespace

ClusterView cluster_view(const json& cluster) {
  ClusterView view;
  view.name = string_at(cluster, "metadata.name");
  if (view.name.empty()) throw FieldError("metadata.name", "", "is required");
  view.ready = is_ready(cluster);
  view.labels = string_map_at(cluster, "metadata.labels");
  view.labels[kSourceLabel] = kSourceValue;
  set_nodes(view, cluster);
  return view;
}

}  // namespace gantry::karmada
