// A YAML subtree as JSON, typed as Kubernetes' YAML decoder types it (YAML
// 1.2 core schema for plain scalars: integers, floats, true/false, null;
// quoted scalars stay strings). Used to keep a task's whole pod template, so
// that fields Gantry does not model still reach Kubernetes unchanged.
#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

namespace gantry::config {

// Throws hub::FieldError for a map key that is not a scalar.
nlohmann::json yaml_to_json(const YAML::Node& node, const std::string& field);

}  // namespace gantry::config
