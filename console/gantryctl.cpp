#include "console/gantryctl.hpp"

#include <map>
#include <ostream>

#include "console/commands.hpp"

namespace gantry::console {

namespace {

using Command = int (*)(CommandContext&);

Command find_command(const std::string& name) {
  static const std::map<std::string, Command> commands{
      {"submit", run_submit}, {"get", run_get},         {"describe", run_describe},
      {"cancel", run_cancel}, {"wait", run_wait},       {"apply", run_apply},
      {"delete", run_delete}, {"version", run_version}, {"help", run_help}};
  return commands.at(name);  // parse_arguments accepts only these names
}

}  // namespace

int run_gantryctl(const std::vector<std::string>& args, const char* env_hub, std::istream& in,
                  std::ostream& out, std::ostream& err) {
  try {
    const Invocation invocation = parse_arguments(args, env_hub);
    CommandContext context(invocation, in, out, err);
    return find_command(invocation.command)(context);
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
