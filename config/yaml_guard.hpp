// The one way Gantry loads YAML that came from outside (manifests, inventories,
// kubeconfigs): the input is checked against config/input_limits.hpp in one
// pass over yaml-cpp's events, before any node is built, and only then loaded.
// YAML::Load alone accepts alias bombs (aliases cost nothing in its tree but
// every reader copies them), cyclic aliases (a reader recursing into them
// never ends), duplicate keys (the last silently wins), invalid UTF-8 and
// several documents of which it silently keeps the first.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string_view>
#include <vector>

#include "config/input_limits.hpp"

namespace gantry::config {

struct YamlLimits {
  std::size_t max_bytes = kMaxYamlBytes;
  std::size_t max_documents = kMaxYamlDocuments;
  std::size_t max_depth = kMaxYamlDepth;
  std::size_t max_aliases = kMaxYamlAliases;
  std::size_t max_expanded_bytes = kMaxYamlExpandedBytes;
};

// Checks `text` and returns its documents. Empty documents (a lone "---", a
// trailing "---") are skipped, as kubectl skips them. Throws hub::FieldError
// naming the field (the path inside the document, or "yaml") and the limit:
// input size, invalid UTF-8 or a NUL byte, more documents than
// limits.max_documents, nesting, alias count, expanded size, an alias to a
// node that contains it, a duplicate mapping key; and for a syntax error.
std::vector<YAML::Node> load_yaml_documents(std::string_view text, const YamlLimits& limits = {});

// The input's single document (a Null node when it has none); more than one
// is refused whatever limits.max_documents says.
YAML::Node load_yaml(std::string_view text, YamlLimits limits = {});

}  // namespace gantry::config
