// Splits a multi-document YAML file (documents separated by "---" lines) into
// its documents, as kubectl does for create/apply -f: the hub takes one object
// per request and refuses several in one (config/yaml_guard.hpp), so gantryctl
// sends each document of a file on its own instead of the hub silently keeping
// the first. Textual, without a YAML parser (gantryctl links none): a line
// starting "---" or "..." followed by a space or nothing is always a document
// marker in YAML, even inside a block or quoted scalar.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gantry::console {

// The input's documents with content, each as its own text (its "---" line
// kept); documents holding only comments, blank lines or markers are dropped,
// and directives ("%YAML 1.2") travel with the document they precede. An input
// with at most one such document is returned whole and unchanged.
std::vector<std::string> split_yaml_documents(std::string_view text);

}  // namespace gantry::console
