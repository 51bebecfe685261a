#include "kube/read_file.hpp"

#include <fstream>
#include <sstream>

namespace gantry::kube {

std::optional<std::string> read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}

std::string trim_token(std::string text) {
  const char* space = " \t\r\n";
  const auto last = text.find_last_not_of(space);
  if (last == std::string::npos) return "";
  text.erase(last + 1);
  return text.substr(text.find_first_not_of(space));
}

}  // namespace gantry::kube
