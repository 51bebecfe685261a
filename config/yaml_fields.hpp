// Small typed accessors over yaml-cpp that throw hub::FieldError with the full
// field path, shared by every user-YAML parser (jobs, queues, inventories).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "hub/field_error.hpp"
#include "protocol/messages.hpp"

namespace gantry::config {

// Parses one YAML document, within config/input_limits.hpp (yaml_guard.hpp); a
// syntax error becomes FieldError("yaml", line:col), a violated limit a
// FieldError naming the field and the limit.
YAML::Node load_document(std::string_view text);

// A yaml-cpp exception that escaped the typed accessors below (a scalar
// indexed as a mapping, a value converted to the wrong type), as the
// FieldError every parser throws: its position, or the key it names.
hub::FieldError yaml_exception_error(const YAML::Exception& error);

void require_map(const YAML::Node& node, const std::string& field);
void require_sequence(const YAML::Node& node, const std::string& field);
// Refuses keys of `node` that are not in `allowed`.
void reject_unknown(const YAML::Node& node, const std::set<std::string>& allowed, const std::string& field);

std::string scalar_text(const YAML::Node& node, const std::string& field);
std::string optional_string(const YAML::Node& parent, const std::string& key, const std::string& field);
std::int32_t optional_int(const YAML::Node& parent, const std::string& key, const std::string& field,
                          std::int32_t fallback);
std::vector<std::string> string_list(const YAML::Node& node, const std::string& field);
protocol::Labels string_map(const YAML::Node& node, const std::string& field);

// "spec" + "queue" -> "spec.queue"; "" + "kind" -> "kind".
std::string join_field(const std::string& parent, const std::string& key);

}  // namespace gantry::config
