#include <ostream>

#include "console/commands.hpp"

namespace gantry::console {

int print_admin_result(CommandContext& context, const protocol::AdminResult& result,
                       const std::string& success_fallback) {
  if (!result.ok) {
    context.err << "error: " << (result.error.empty() ? result.message : result.error) << "\n";
    return kExitFailed;
  }
  context.out << (result.message.empty() ? success_fallback : result.message) << "\n";
  return kExitOk;
}

}  // namespace gantry::console
