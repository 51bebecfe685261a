#include "config/yaml_fields.hpp"

#include <limits>

#include "config/yaml_guard.hpp"
#include "hub/field_error.hpp"

namespace gantry::config {

using hub::FieldError;

std::string join_field(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

YAML::Node load_document(std::string_view text) {
  YAML::Node root = load_yaml(text);
  if (!root.IsMap()) throw FieldError("yaml", "", "the document must be a mapping");
  return root;
}

FieldError yaml_exception_error(const YAML::Exception& error) {
  if (error.mark.is_null()) return FieldError("yaml", "", error.msg);
  // Where, as the YAML guard words it ("yaml: invalid UTF-8 at line 2, column 7"), not as a value.
  return FieldError("yaml", "",
                    error.msg + " at line " + std::to_string(error.mark.line + 1) + ", column " +
                        std::to_string(error.mark.column + 1));
}

void require_map(const YAML::Node& node, const std::string& field) {
  if (!node.IsMap()) throw FieldError(field, node.IsScalar() ? node.Scalar() : "", "must be a mapping");
}

void require_sequence(const YAML::Node& node, const std::string& field) {
  if (!node.IsSequence()) throw FieldError(field, node.IsScalar() ? node.Scalar() : "", "must be a list");
}

void reject_unknown(const YAML::Node& node, const std::set<std::string>& allowed, const std::string& field) {
  for (const auto& entry : node) {
    const std::string key = entry.first.as<std::string>();
    if (!allowed.count(key)) throw FieldError(join_field(field, key), "", "unknown field");
  }
}

std::string scalar_text(const YAML::Node& node, const std::string& field) {
  if (!node.IsScalar()) throw FieldError(field, "", "must be a single value");
  return node.Scalar();
}

std::string optional_string(const YAML::Node& parent, const std::string& key, const std::string& field) {
  const YAML::Node node = parent[key];
  if (!node || node.IsNull()) return "";
  return scalar_text(node, join_field(field, key));
}

std::int32_t optional_int(const YAML::Node& parent, const std::string& key, const std::string& field,
                          std::int32_t fallback) {
  const YAML::Node node = parent[key];
  if (!node || node.IsNull()) return fallback;
  const std::string path = join_field(field, key);
  const std::string text = scalar_text(node, path);
  std::size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || value < std::numeric_limits<std::int32_t>::min() ||
      value > std::numeric_limits<std::int32_t>::max())
    throw FieldError(path, text, "must be an integer");
  return static_cast<std::int32_t>(value);
}

std::vector<std::string> string_list(const YAML::Node& node, const std::string& field) {
  std::vector<std::string> out;
  if (!node || node.IsNull()) return out;
  require_sequence(node, field);
  for (std::size_t i = 0; i < node.size(); ++i)
    out.push_back(scalar_text(node[i], field + "[" + std::to_string(i) + "]"));
  return out;
}

protocol::Labels string_map(const YAML::Node& node, const std::string& field) {
  protocol::Labels out;
  if (!node || node.IsNull()) return out;
  require_map(node, field);
  for (const auto& entry : node) {
    const std::string key = entry.first.as<std::string>();
    out[key] = scalar_text(entry.second, field + "." + key);
  }
  return out;
}

}  // namespace gantry::config
