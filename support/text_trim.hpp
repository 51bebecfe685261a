// Text without its leading and trailing blanks: for lines of hand-written
// files (key files, token files) read as values.
#pragma once

#include <string>
#include <string_view>

namespace gantry::support {

// `text` less the characters of `blanks` at either end; "" when it has nothing else.
inline std::string trimmed(std::string_view text, std::string_view blanks = " \t\r\n") {
  const auto first = text.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  return std::string(text.substr(first, text.find_last_not_of(blanks) - first + 1));
}

}  // namespace gantry::support
