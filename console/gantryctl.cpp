#include "console/gantryctl.hpp"

#include <ostream>

#include "console/command_context.hpp"
#include "console/command_table.hpp"

namespace gantry::console {

int run_gantryctl(const std::vector<std::string>& args, const char* env_hub, std::istream& in,
                  std::ostream& out, std::ostream& err) {
  try {
    const Invocation invocation = parse_arguments(args, env_hub);
    CommandContext context(invocation, in, out, err);
    return find_command(invocation.command)->run(context);  // parsing accepts only these
  } catch (const UsageError& e) {
    err << "gantryctl: " << e.what() << "\n\n"
        << usage_synopsis() << "\nRun 'gantryctl help' for flags and exit statuses.\n";
    return kExitUsage;
  } catch (const HubUnavailable& e) {
    err << "error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const HubRefusal& e) {
    err << "error: " << e.what() << "\n";
    return kExitFailed;
  } catch (const std::exception& e) {
    err << "error: " << e.what() << "\n";
    return kExitFailed;
  }
}

}  // namespace gantry::console
