#include "config/yaml_json.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <string>
#include <string_view>

#include "hub/field_error.hpp"

namespace gantry::config {

namespace {

using nlohmann::json;

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string_view without_sign(std::string_view text) {
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) text.remove_prefix(1);
  return text;
}

// [-+]?[0-9]+
bool is_int(std::string_view text) {
  return all_digits(without_sign(text));
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool is_float(std::string_view text) {
  text = without_sign(text);
  const std::size_t e = text.find_first_of("eE");
  if (e != std::string_view::npos && !all_digits(without_sign(text.substr(e + 1)))) return false;
  const std::string_view mantissa = text.substr(0, e);
  const std::size_t dot = mantissa.find('.');
  if (dot == std::string_view::npos) return all_digits(mantissa);
  const std::string_view whole = mantissa.substr(0, dot);
  const std::string_view fraction = mantissa.substr(dot + 1);
  if (whole.empty()) return all_digits(fraction);
  return all_digits(whole) && (fraction.empty() || all_digits(fraction));
}

// A plain (unquoted) scalar as the YAML 1.2 core schema resolves it. Matched
// by hand, not with std::regex: libstdc++'s regex recurses once per character,
// and a plain scalar of a few hundred thousand digits (well within
// kMaxYamlBytes) would overflow the stack.
json plain_scalar(const std::string& text) {
  if (text == "~" || text == "null" || text == "Null" || text == "NULL" || text.empty())
    return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  if (is_int(text)) {
    const char* begin = text.data() + (text.front() == '+' ? 1 : 0);
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(begin, text.data() + text.size(), value);
    if (error == std::errc() && end == text.data() + text.size()) return value;
    return text;  // out of range: Kubernetes would refuse it; keep the text
  }
  if (is_float(text)) {
    errno = 0;
    const double value = std::strtod(text.c_str(), nullptr);
    if (errno == ERANGE) return text;  // out of a double's range: keep the text
    return value;
  }
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
