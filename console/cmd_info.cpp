// version and help: answered locally, without the hub.
#include <ostream>

#include "console/command_line.hpp"
#include "console/command_table.hpp"
#include "console/commands.hpp"
#include "protocol/messages.hpp"

namespace gantry::console {

namespace {

void add_version(CLI::App&, Invocation&) {}

void add_help(CLI::App& command, Invocation&) {
  ignore_operands(command);
}

int run_version(CommandContext& context) {
  context.out << "gantryctl " << GANTRY_VERSION << " (protocol " << protocol::kProtocolVersion
              << ")\n";
  return kExitOk;
}

int run_help(CommandContext& context) {
  context.out << usage_text();
  return kExitOk;
}

}  // namespace

extern const CommandSpec kVersionCommand{"version", "version", "print gantryctl's version",
                                         add_version, run_version};
extern const CommandSpec kHelpCommand{"help", "help", "print flags, durations and exit statuses",
                                      add_help, run_help};

}  // namespace gantry::console
