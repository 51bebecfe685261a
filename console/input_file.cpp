#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "console/commands.hpp"

namespace gantry::console {

std::string read_input_file(CommandContext& context) {
  const std::string& path = context.invocation.file;
  std::ostringstream text;
  if (path == "-") {
    text << context.in.rdbuf();
    return text.str();
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) throw UsageError("-f: cannot open \"" + path + "\": " + std::strerror(errno));
  text << file.rdbuf();
  if (file.bad()) throw UsageError("-f: cannot read \"" + path + "\"");
  return text.str();
}

}  // namespace gantry::console
