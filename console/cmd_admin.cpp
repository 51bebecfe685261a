// cancel, apply and delete: requests answered by an AdminResult.
#include <ostream>

#include "console/commands.hpp"

namespace gantry::console {

namespace {

int report(CommandContext& context, const protocol::AdminResult& result,
           const std::string& success_fallback) {
  if (!result.ok) {
    context.err << "error: " << (result.error.empty() ? result.message : result.error) << "\n";
    return kExitFailed;
  }
  context.out << (result.message.empty() ? success_fallback : result.message) << "\n";
  return kExitOk;
}

}  // namespace

int run_cancel(CommandContext& context) {
  const Invocation& invocation = context.invocation;
  const auto result = context.hub().call<protocol::AdminResult>(
      protocol::CancelRequest{invocation.kind, invocation.name});
  return report(context, result, "job " + invocation.name + " cancelled");
}

int run_apply(CommandContext& context) {
  const std::string yaml = read_input_file(context);
  const auto result = context.hub().call<protocol::AdminResult>(protocol::ApplyRequest{yaml});
  return report(context, result, "applied");
}

int run_delete(CommandContext& context) {
  const Invocation& invocation = context.invocation;
  const auto result = context.hub().call<protocol::AdminResult>(
      protocol::DeleteRequest{invocation.kind, invocation.name});
  return report(context, result, invocation.kind + " " + invocation.name + " deleted");
}

}  // namespace gantry::console
