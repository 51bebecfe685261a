#include "console/table.hpp"

#include <algorithm>
#include <stdexcept>

namespace gantry::console {

namespace {

constexpr const char* kColumnGap = "   ";

void append_padded(std::string& out, const std::string& cell, std::size_t width) {
  out += cell;
  out.append(width - display_width(cell), ' ');
}

void append_row(std::string& out, const std::vector<std::string>& cells,
                const std::vector<std::size_t>& widths, const std::string& indent) {
  out += indent;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    if (c + 1 == cells.size()) {
      out += cells[c];
    } else {
      append_padded(out, cells[c], widths[c]);
      out += kColumnGap;
    }
  }
  // Empty trailing cells would leave padding at the end of the line.
  while (!out.empty() && out.back() == ' ') out.pop_back();
  out += '\n';
}

}  // namespace

std::size_t display_width(const std::string& text) {
  // Count bytes that start a code point, i.e. are not UTF-8 continuation bytes.
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

Table::Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}

void Table::add_row(std::vector<std::string> cells) {
  if (cells.size() != headers_.size()) {
    throw std::invalid_argument("Table: row has " + std::to_string(cells.size()) + " cells for " +
                                std::to_string(headers_.size()) + " columns");
  }
  rows_.push_back(std::move(cells));
}

std::string Table::render(const std::string& indent) const {
  std::vector<std::size_t> widths(headers_.size());
  for (std::size_t c = 0; c < headers_.size(); ++c) {
    widths[c] = display_width(headers_[c]);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], display_width(row[c]));
  }
  std::string out;
  append_row(out, headers_, widths, indent);
  for (const auto& row : rows_) append_row(out, row, widths, indent);
  return out;
}

std::string render_fields(const std::vector<Field>& fields) {
  std::size_t key_width = 0;
  for (const auto& [key, value] : fields) key_width = std::max(key_width, display_width(key) + 1);
  const std::size_t value_column = key_width + 2;
  std::string out;
  for (const auto& [key, value] : fields) {
    out += key + ":";
    std::string continued = value;
    for (std::size_t at = continued.find('\n'); at != std::string::npos;
         at = continued.find('\n', at + 1)) {
      continued.insert(at + 1, std::string(value_column, ' '));
    }
    if (!value.empty()) {
      out.append(value_column - display_width(key) - 1, ' ');
      out += continued;
    }
    out += '\n';
  }
  return out;
}

}  // namespace gantry::console
