// Plain-text layouts in the kubectl style: aligned columns separated by three
// spaces, and "Key:  value" blocks for describe.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gantry::console {

class Table {
 public:
  explicit Table(std::vector<std::string> headers);
  // Throws std::invalid_argument when the row has not one cell per header.
  void add_row(std::vector<std::string> cells);
  bool empty() const { return rows_.empty(); }
  // Every line is prefixed with `indent`; the last column is never padded.
  std::string render(const std::string& indent = "") const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

using Field = std::pair<std::string, std::string>;

// "Name:     llm\nQueue:    research\n": values aligned one column past the
// longest key. A multi-line value continues indented under its first line.
std::string render_fields(const std::vector<Field>& fields);

// Display width of UTF-8 text in code points (good enough for names and reasons).
std::size_t display_width(const std::string& text);

}  // namespace gantry::console
