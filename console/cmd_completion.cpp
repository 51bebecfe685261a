// completion bash|zsh: answered locally, without the hub.
#include <CLI/CLI.hpp>
#include <ostream>

#include "console/command_line.hpp"
#include "console/command_table.hpp"
#include "console/commands.hpp"
#include "console/completion.hpp"

namespace gantry::console {

namespace {

void add_completion(CLI::App& command, Invocation& invocation) {
  add_kind_operand(command, invocation.kind, {"bash", "zsh"});
}

int run_completion(CommandContext& context) {
  context.out << completion_script(context.invocation.kind);
  return kExitOk;
}

}  // namespace

extern const CommandSpec kCompletionCommand{
    "completion", "completion bash|zsh",
    "print a shell completion script: source <(gantryctl completion bash)", add_completion,
    run_completion};

}  // namespace gantry::console
