// web: a one-time login to the hub's web view (docs/web.md) for this
// gantryctl's key. The URL goes to stdout alone, so that
// `xdg-open "$(gantryctl web)"` opens it; what it is, to stderr.
#include <ostream>

#include "console/command_line.hpp"
#include "console/command_table.hpp"
#include "console/commands.hpp"
#include "hub/duration.hpp"

namespace gantry::console {

namespace {

void add_web(CLI::App& command, Invocation& invocation) {
  add_value_flag(command, "--job", "NAME", [&invocation](const std::string& value) {
    if (value.empty()) throw UsageError("--job: empty job name");
    invocation.job = value;
  });
}

int run_web(CommandContext& context) {
  const auto reply = context.hub().call<protocol::WebLoginReply>(
      protocol::WebLoginRequest{context.invocation.job});
  if (!reply.ok) {
    context.err << "error: " << reply.error << "\n";
    return kExitFailed;
  }
  context.out << reply.url << "\n";
  if (reply.valid_ms == 0) {
    context.err << "the hub runs --insecure: its web view needs no login\n";
  } else {
    context.err << "open it within " << hub::format_duration(reply.valid_ms)
                << ": it logs a browser in once, as key \"" << reply.key << "\"\n";
  }
  return kExitOk;
}

}  // namespace

extern const CommandSpec kWebCommand{
    "web", "web [--job NAME]",
    "print a one-time URL that logs a browser in to the hub's web view\n(as this key; on the job's "
    "page with --job)",
    add_web, run_web};

}  // namespace gantry::console
