// A small reader for the comma-separated trace and node-list files: checks
// the header, hands out one row of fields at a time and turns a bad field into
// an error that names the file, the line and the column.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::sim {

class CsvError : public std::runtime_error {
 public:
  CsvError(const std::string& file, std::size_t line, std::size_t column,
           const std::string& problem);
  const std::string& file() const { return file_; }
  std::size_t line() const { return line_; }      // 1-based, 0 when not about a line
  std::size_t column() const { return column_; }  // 1-based, 0 when not about a field

 private:
  std::string file_;
  std::size_t line_;
  std::size_t column_;
};

class CsvReader {
 public:
  // Opens `file` and checks that its first line is exactly `header` (column
  // names). Throws CsvError when the file cannot be read or the header differs.
  CsvReader(const std::filesystem::path& file, std::vector<std::string> header);

  // Reads the next non-empty row into the fields returned by field(). Returns
  // false at the end of the file. Throws CsvError when the row does not have
  // exactly one field per header column.
  bool next_row();

  std::string_view field(std::size_t column) const { return fields_[column]; }
  // The field as an integer in [min, max]; throws CsvError otherwise.
  std::int64_t integer(std::size_t column, std::int64_t min, std::int64_t max) const;
  std::size_t line_number() const { return line_number_; }
  const std::string& file_name() const { return file_name_; }

  // An error about `column` (0-based) of the current row.
  CsvError error(std::size_t column, const std::string& problem) const;

 private:
  void split_line();

  std::ifstream stream_;
  std::string file_name_;
  std::vector<std::string> header_;
  std::string line_;
  std::vector<std::string_view> fields_;
  std::size_t line_number_ = 0;
};

}  // namespace gantry::sim
