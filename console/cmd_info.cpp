// version and help: answered locally, without the hub.
#include <CLI/CLI.hpp>
#include <ostream>

#include "console/command_line.hpp"
#include "console/command_table.hpp"
#include "console/commands.hpp"
#include "protocol/messages.hpp"

namespace gantry::console {

namespace {

void add_version(CLI::App&, Invocation&) {}

void add_help(CLI::App& command, Invocation& invocation) {
  command.add_option("COMMAND", invocation.help_topic, "the command to tell about");
}

int run_version(CommandContext& context) {
  context.out << "gantryctl " << GANTRY_VERSION << " (protocol " << protocol::kProtocolVersion
              << ")\n";
  return kExitOk;
}

int run_help(CommandContext& context) {
  const std::string& topic = context.invocation.help_topic;
  if (!topic.empty() && find_command(topic) == nullptr)
    throw UsageError("help: unknown command \"" + topic + "\"");
  context.out << usage_text(topic);
  if (!topic.empty())
    context.out << "\nConnection flags, durations and exit statuses: gantryctl help\n";
  return kExitOk;
}

}  // namespace

extern const CommandSpec kVersionCommand{"version", "version", "print gantryctl's version",
                                         add_version, run_version};
extern const CommandSpec kHelpCommand{
    "help", "help [COMMAND]", "print flags, durations and exit statuses, or a command's usage",
    add_help, run_help};

}  // namespace gantry::console
