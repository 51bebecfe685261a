// gantryctl as a function, so tests run it with their own streams and hub.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "console/environment.hpp"

namespace gantry::console {

// Parses `args` (without the program name), runs the command and returns the
// exit status; every error is printed to `err`, nothing throws.
int run_gantryctl(const std::vector<std::string>& args, const Environment& environment,
                  std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace gantry::console
