#include "console/environment.hpp"

#include <cstdlib>

namespace gantry::console {

namespace {

std::string variable(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

}  // namespace

Environment process_environment() {
  return Environment{variable("GANTRY_HUB"),      variable("GANTRY_HUB_KEY"),
                     variable("GANTRY_KEY"),      variable("GANTRY_CONFIG_DIR"),
                     variable("XDG_CONFIG_HOME"), variable("HOME")};
}

}  // namespace gantry::console
