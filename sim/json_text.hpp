// The few JSON spellings the reports need, so that the same figures always
// give the same bytes.
#pragma once

#include <string>

namespace gantry::sim {

// Shortest text that reads back as exactly `value`.
std::string json_number(double value);
// A JSON string literal; names come from file names, so escape what JSON requires.
std::string json_quoted(const std::string& text);

}  // namespace gantry::sim
