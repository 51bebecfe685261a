#include "console/command_table.hpp"

#include <algorithm>
#include <array>

namespace gantry::console {

// Each spec is defined with its command, in cmd_<name>.cpp.
extern const CommandSpec kSubmitCommand, kGetCommand, kDescribeCommand, kLogsCommand,
    kCancelCommand, kWaitCommand, kApplyCommand, kDeleteCommand, kCordonCommand, kUncordonCommand,
    kDrainCommand, kKeysCommand, kWebCommand, kCompletionCommand, kVersionCommand, kHelpCommand;

namespace {

constexpr std::array kCommands{
    &kSubmitCommand, &kGetCommand,        &kDescribeCommand, &kLogsCommand,
    &kCancelCommand, &kWaitCommand,       &kApplyCommand,    &kDeleteCommand,
    &kCordonCommand, &kUncordonCommand,   &kDrainCommand,    &kKeysCommand,
    &kWebCommand,    &kCompletionCommand, &kVersionCommand,  &kHelpCommand,
};

}  // namespace

std::span<const CommandSpec* const> command_table() {
  return kCommands;
}

const CommandSpec* find_command(std::string_view name) {
  const auto it =
      std::find_if(kCommands.begin(), kCommands.end(),
                   [name](const CommandSpec* command) { return command->name == name; });
  return it == kCommands.end() ? nullptr : *it;
}

}  // namespace gantry::console
