// version and help: answered locally, without the hub.
#include <ostream>

#include "console/commands.hpp"
#include "protocol/messages.hpp"

namespace gantry::console {

int run_version(CommandContext& context) {
  context.out << "gantryctl " << GANTRY_VERSION << " (protocol " << protocol::kProtocolVersion
              << ")\n";
  return kExitOk;
}

int run_help(CommandContext& context) {
  context.out << usage_text();
  return kExitOk;
}

}  // namespace gantry::console
