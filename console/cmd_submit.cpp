#include <ostream>

#include "console/commands.hpp"

namespace gantry::console {

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

}  // namespace gantry::console
