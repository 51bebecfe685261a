// Kubernetes objects as the agents and the Karmada gateway read them from an
// API server's lists and watches: Nodes and Pods (agents/kube_nodes: what each
// node still offers, each pod's requests) and Karmada Clusters
// (karmada/cluster_view). The input is one JSON value: a List ({"items":
// [...]}), an array of objects, or one object; each item goes by its kind.
// Bad objects may throw a std::exception (logged, the object skipped);
// nothing may crash.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "agents/kube_nodes.hpp"
#include "karmada/cluster_view.hpp"

namespace {

using nlohmann::json;

std::vector<json> items_of(const json& input) {
  if (input.is_object() && input.contains("items") && input["items"].is_array()) {
    return input["items"].get<std::vector<json>>();
  }
  if (input.is_array()) return input.get<std::vector<json>>();
  return {input};
}

// A pod the executor created carries its labels: an own pod is left in.
bool labelled_own(const json& pod) {
  const json* labels = nullptr;
  if (pod.is_object() && pod.contains("metadata") && pod["metadata"].is_object() &&
      pod["metadata"].contains("labels")) {
    labels = &pod["metadata"]["labels"];
  }
  return labels && labels->is_object() && labels->contains("gantry.io/dispatch");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  json input;
  try {
    input = json::parse(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const json::exception&) {  // parse_error, or out_of_range (1e999)
    return 0;
  }
  std::vector<json> nodes;
  std::vector<json> pods;
  for (const json& item : items_of(input)) {
    const bool has_kind = item.is_object() && item.contains("kind") && item["kind"].is_string();
    const std::string kind = has_kind ? item["kind"].get<std::string>() : "";
    if (kind == "Node") {
      nodes.push_back(item);
    } else if (kind == "Cluster") {
      try {
        (void)gantry::karmada::cluster_view(item);
      } catch (const std::exception&) {
      }
    } else {
      pods.push_back(item);
      try {
        (void)gantry::agents::pod_requests(item, "Pod fuzz/p");
      } catch (const std::exception&) {
      }
    }
  }
  try {
    (void)gantry::agents::usable_nodes(nodes, pods, labelled_own);
  } catch (const std::exception&) {
  }
  return 0;
}
