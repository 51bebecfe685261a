// A made-up namespaced resource the fixture stores like any other.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace gantry::kube::testing {

inline const std::string kThings = "/apis/example.gantry.io/v1/namespaces/default/things";

inline std::string thing_path(const std::string& name) {
  return kThings + "/" + name;
}

inline nlohmann::json thing(const std::string& name, int size = 1) {
  return {{"apiVersion", "example.gantry.io/v1"},
          {"kind", "Thing"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", {{"size", size}}}};
}

inline std::string resource_version(const std::string& object_json) {
  return nlohmann::json::parse(object_json)["metadata"]["resourceVersion"].get<std::string>();
}

}  // namespace gantry::kube::testing
