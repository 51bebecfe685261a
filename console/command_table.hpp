// gantryctl's commands, one CommandSpec each. Adding a command is one
// cmd_<name>.cpp that defines its spec and one row in command_table.cpp.
#pragma once

#include <span>
#include <string_view>

#include "console/arguments.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace gantry::console {

class CommandContext;

struct CommandSpec {
  std::string_view name;
  std::string_view synopsis;  // what follows "gantryctl", e.g. "describe job|queue|cluster NAME"
  std::string_view summary;   // its line in the help; '\n' continues under it
  // Declares the command's operands and flags (see command_line.hpp), which
  // fill `invocation`.
  void (*add_to)(CLI::App& command, Invocation& invocation);
  int (*run)(CommandContext& context);  // returns the exit status
};

// Every command, in the order the help lists them.
std::span<const CommandSpec* const> command_table();

// nullptr for a name that is no command.
const CommandSpec* find_command(std::string_view name);

}  // namespace gantry::console
