// Writes a loaded (or built) YAML node back as text that loads to the same
// values: yaml-cpp's own Dump drops the quotes of quoted scalars, so "007" or
// "true" would come back as a number or a boolean. Scalars marked "!" (quoted
// in their document, or built as strings) are written double-quoted.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

namespace gantry::config {

std::string emit_yaml(const YAML::Node& node);

// A string scalar that reads back as a string whatever its text ("7", "on").
YAML::Node string_scalar(const std::string& text);

}  // namespace gantry::config
