#include "config/yaml_json.hpp"

#include <charconv>
#include <regex>
#include <string>

#include "hub/field_error.hpp"

namespace gantry::config {

namespace {

using nlohmann::json;

// A plain (unquoted) scalar as the YAML 1.2 core schema resolves it.
json plain_scalar(const std::string& text) {
  // Most scalars (names, images, quantities with units) start like none of
  // the typed forms: no regex for them (this runs on every submission).
  if (text.empty()) return nullptr;
  const char first = text.front();
  const bool may_be_number = (first >= '0' && first <= '9') || first == '-' || first == '+' ||
                             first == '.';
  const bool may_be_word = first == '~' || first == 'n' || first == 'N' || first == 't' ||
                           first == 'T' || first == 'f' || first == 'F';
  if (!may_be_number && !may_be_word) return text;
  static const std::regex kNull(R"(~|null|Null|NULL|)");
  static const std::regex kTrue(R"(true|True|TRUE)");
  static const std::regex kFalse(R"(false|False|FALSE)");
  static const std::regex kInt(R"([-+]?[0-9]+)");
  static const std::regex kFloat(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  if (std::regex_match(text, kNull)) return nullptr;
  if (std::regex_match(text, kTrue)) return true;
  if (std::regex_match(text, kFalse)) return false;
  if (std::regex_match(text, kInt)) {
    const char* begin = text.data() + (text.front() == '+' ? 1 : 0);
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(begin, text.data() + text.size(), value);
    if (error == std::errc() && end == text.data() + text.size()) return value;
    return text;  // out of range: Kubernetes would refuse it; keep the text
  }
  if (std::regex_match(text, kFloat)) return std::stod(text);
  return text;
}

}  // namespace

json yaml_to_json(const YAML::Node& node, const std::string& field) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return nullptr;
    case YAML::NodeType::Scalar:
      // "!" marks a quoted (or explicitly tagged) scalar: always a string.
      return node.Tag() == "!" ? json(node.Scalar()) : plain_scalar(node.Scalar());
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (std::size_t i = 0; i < node.size(); ++i)
        out.push_back(yaml_to_json(node[i], field + "[" + std::to_string(i) + "]"));
      return out;
    }
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& entry : node) {
        if (!entry.first.IsScalar()) throw hub::FieldError(field, "", "has a key that is not a string");
        const std::string key = entry.first.Scalar();
        out[key] = yaml_to_json(entry.second, field + "." + key);
      }
      return out;
    }
  }
  return nullptr;
}

}  // namespace gantry::config
