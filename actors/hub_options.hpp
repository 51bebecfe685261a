// gantry-hub's command line.
#pragma once

#include <string>
#include <vector>

#include "actors/hub.hpp"

namespace gantry::actors {

struct HubCommandLine {
  HubOptions options;
  std::string log_level = "info";
  bool help = false;
};

// Throws std::invalid_argument naming the flag and the value it refused.
HubCommandLine parse_hub_command_line(const std::vector<std::string>& args);
std::string hub_usage();

}  // namespace gantry::actors
