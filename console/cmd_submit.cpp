#include <ostream>

#include "console/command_line.hpp"
#include "console/command_table.hpp"
#include "console/commands.hpp"

namespace gantry::console {

namespace {

void add_submit(CLI::App& command, Invocation& invocation) {
  add_file_flag(command, invocation.file);
}

int run_submit(CommandContext& context) {
  const std::string yaml = read_input_file(context);
  const auto reply = context.hub().call<protocol::SubmitJobReply>(protocol::SubmitJobRequest{yaml});
  if (!reply.ok) {
    context.err << "error: job refused: " << reply.error << "\n";
    return kExitFailed;
  }
  context.out << reply.job << "\n";  // only the name, so scripts can capture it
  return kExitOk;
}

}  // namespace

extern const CommandSpec kSubmitCommand{
    "submit", "submit -f FILE", "submit a Volcano Job (FILE \"-\" reads stdin); prints its name",
    add_submit, run_submit};

}  // namespace gantry::console
