#include "console/gantryctl.hpp"

#include <ostream>

#include "console/client_keys.hpp"
#include "console/command_context.hpp"
#include "console/command_table.hpp"

namespace gantry::console {

int run_gantryctl(const std::vector<std::string>& args, const Environment& environment,
                  std::istream& in, std::ostream& out, std::ostream& err) {
  try {
    const char* env_hub = environment.hub.empty() ? nullptr : environment.hub.c_str();
    const Invocation invocation = parse_arguments(args, env_hub);
    CommandContext context(invocation, environment, in, out, err);
    return find_command(invocation.command)->run(context);  // parsing accepts only these
  } catch (const UsageError& e) {
    // The usage of the command it is about, as kubectl does, not every command's.
    const std::string topic = named_command(args);
    err << "gantryctl: " << e.what() << "\n";
    if (!topic.empty() && topic != "help") err << "\n" << usage_text(topic) << "\n";
    err << "Run 'gantryctl help' for every command, its flags and exit statuses.\n";
    return kExitUsage;
  } catch (const KeyError& e) {
    err << "error: " << e.what() << "\n";
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
