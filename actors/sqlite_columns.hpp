// A row's text and blob cells as strings, "" for NULL: what the store and
// its reader (JobHistory) both read.
#pragma once

#include <sqlite3.h>

#include <string>

namespace gantry::actors {

inline std::string column_text(sqlite3_stmt* statement, int index) {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, index));
  return text ? std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(statement, index)))
              : std::string();
}

inline std::string column_blob(sqlite3_stmt* statement, int index) {
  const auto* data = static_cast<const char*>(sqlite3_column_blob(statement, index));
  return data ? std::string(data, static_cast<std::size_t>(sqlite3_column_bytes(statement, index)))
              : std::string();
}

}  // namespace gantry::actors
