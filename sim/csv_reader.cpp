#include "sim/csv_reader.hpp"

#include <charconv>

namespace gantry::sim {
namespace {

std::string location(const std::string& file, std::size_t line, std::size_t column) {
  std::string where = file;
  if (line > 0) where += ":" + std::to_string(line);
  if (column > 0) where += ":" + std::to_string(column);
  return where;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ",") + name;
  return out;
}

}  // namespace

CsvError::CsvError(const std::string& file, std::size_t line, std::size_t column,
                   const std::string& problem)
    : std::runtime_error(location(file, line, column) + ": " + problem),
      file_(file),
      line_(line),
      column_(column) {}

CsvReader::CsvReader(const std::filesystem::path& file, std::vector<std::string> header)
    : stream_(file), file_name_(file.string()), header_(std::move(header)) {
  if (!stream_) throw CsvError(file_name_, 0, 0, "cannot open file");
  if (!std::getline(stream_, line_))
    throw CsvError(file_name_, 1, 0, "empty file, expected a header");
  line_number_ = 1;
  if (!line_.empty() && line_.back() == '\r') line_.pop_back();
  if (line_ != joined(header_))
    throw CsvError(file_name_, 1, 0,
                   "header must be \"" + joined(header_) + "\" (got \"" + line_ + "\")");
}

bool CsvReader::next_row() {
  while (std::getline(stream_, line_)) {
    ++line_number_;
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    if (line_.empty()) continue;
    split_line();
    if (fields_.size() != header_.size())
      throw CsvError(file_name_, line_number_, 0,
                     "expected " + std::to_string(header_.size()) + " fields (" + joined(header_) +
                         "), got " + std::to_string(fields_.size()) + " in \"" + line_ + "\"");
    return true;
  }
  if (stream_.bad()) throw CsvError(file_name_, line_number_ + 1, 0, "read error");
  return false;
}

void CsvReader::split_line() {
  fields_.clear();
  std::string_view rest = line_;
  while (true) {
    const auto comma = rest.find(',');
    fields_.push_back(rest.substr(0, comma));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
}

std::int64_t CsvReader::integer(std::size_t column, std::int64_t min, std::int64_t max) const {
  const std::string_view text = fields_[column];
  std::int64_t value = 0;
  const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (status != std::errc() || end != text.data() + text.size() || text.empty())
    throw error(column, "expected an integer (got \"" + std::string(text) + "\")");
  if (value < min || value > max)
    throw error(column, "must be between " + std::to_string(min) + " and " + std::to_string(max) +
                            " (got " + std::string(text) + ")");
  return value;
}

CsvError CsvReader::error(std::size_t column, const std::string& problem) const {
  return CsvError(file_name_, line_number_, column + 1, header_[column] + ": " + problem);
}

}  // namespace gantry::sim
