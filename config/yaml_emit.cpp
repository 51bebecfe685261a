#include "config/yaml_emit.hpp"

namespace gantry::config {

namespace {

void emit_node(YAML::Emitter& out, const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      out << YAML::Null;
      return;
    case YAML::NodeType::Scalar:
      if (node.Tag() == "!") out << YAML::DoubleQuoted;
      out << node.Scalar();
      return;
    case YAML::NodeType::Sequence:
      out << YAML::BeginSeq;
      for (const YAML::Node& item : node) emit_node(out, item);
      out << YAML::EndSeq;
      return;
    case YAML::NodeType::Map:
      out << YAML::BeginMap;
      for (const auto& entry : node) {
        out << YAML::Key;
        emit_node(out, entry.first);
        out << YAML::Value;
        emit_node(out, entry.second);
      }
      out << YAML::EndMap;
      return;
  }
}

}  // namespace

std::string emit_yaml(const YAML::Node& node) {
  YAML::Emitter out;
  emit_node(out, node);
  return std::string(out.c_str(), out.size()) + "\n";
}

YAML::Node string_scalar(const std::string& text) {
  YAML::Node node(text);
  node.SetTag("!");
  return node;
}

}  // namespace gantry::config
