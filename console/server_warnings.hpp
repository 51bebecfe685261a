// What the hub wants an operator to know whatever was asked (a degraded
// store, runs held on a cluster), printed before the answer on stderr, as
// kubectl prints an API server's warnings.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace gantry::console {

inline void print_server_warnings(std::ostream& err, const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings) err << "Warning: " << warning << "\n";
}

}  // namespace gantry::console
