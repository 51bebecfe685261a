#include "console/arguments.hpp"

#include <CLI/CLI.hpp>

#include "console/command_line.hpp"
#include "console/command_table.hpp"
#include "support/comma_list.hpp"

namespace gantry::console {

namespace {

// Where a command's summary starts in the help.
constexpr std::size_t kSummaryColumn = 34;

// One endpoint, or several hubs on one store separated by commas.
std::string checked_endpoint(const std::string& endpoints, const std::string& source) {
  for (const std::string& endpoint : support::comma_list(endpoints)) {
    if (endpoint.find("://") == std::string::npos || endpoint.ends_with("://")) {
      throw UsageError(source + ": \"" + endpoint +
                       "\" is not a ZeroMQ endpoint (expected e.g. tcp://127.0.0.1:7801)");
    }
  }
  return endpoints;
}

// The command found on the line, or nullptr.
CLI::App* parsed_command(const CLI::App& root) {
  const std::vector<CLI::App*> commands = root.get_subcommands();
  return commands.empty() ? nullptr : commands.front();
}

// Hands `value` to the command's own flag `name`; false when it has none.
bool forward_to_command(const CLI::App& root, const std::string& name, const std::string& value) {
  CLI::App* command = parsed_command(root);
  CLI::Option* own = command == nullptr ? nullptr : command->get_option_no_throw(name);
  if (own == nullptr) return false;
  own->add_result(value);
  return true;
}

// --timeout means the command's own --timeout where it has one (wait: the
// whole wait, as in kubectl wait), else the per-request timeout.
void add_connection_flags(CLI::App& root, Invocation& out, bool& hub_given) {
  add_value_flag(root, "--hub", "ENDPOINT", [&out, &hub_given](const std::string& value) {
    out.hub = checked_endpoint(value, "--hub");
    hub_given = true;
  });
  add_value_flag(root, "--hub-key", "FILE", [&out](const std::string& value) {
    if (value.empty()) throw UsageError("--hub-key: empty file name");
    out.hub_key_file = value;
  });
  add_value_flag(root, "--key", "FILE", [&out](const std::string& value) {
    if (value.empty()) throw UsageError("--key: empty file name");
    out.key_file = value;
  });
  root.add_flag("--insecure", out.insecure);
  add_value_flag(root, "--request-timeout", "DURATION", [&out](const std::string& value) {
    out.request_timeout = checked_duration("--request-timeout", value, false);
  });
  add_value_flag(root, "--timeout", "DURATION", [&root, &out](const std::string& value) {
    if (forward_to_command(root, "--timeout", value)) return;
    out.request_timeout = checked_duration("--timeout", value, false);
  });
}

// CLI11 reads a command's flags only after the command; gantryctl takes them
// before it too. The root gets a twin of each that hands its value on, and
// reports a flag the command found on the line does not have.
// Whether the root already has one of the flag's spellings (a command's
// twin, or two commands' flags sharing a letter): then the flag is read
// after its command only.
bool root_has_spelling(const CLI::App& root, const CLI::Option& flag) {
  for (const std::string& name : flag.get_lnames())
    if (root.get_option_no_throw("--" + name) != nullptr) return true;
  for (const std::string& name : flag.get_snames())
    if (root.get_option_no_throw("-" + name) != nullptr) return true;
  return false;
}

void add_command_flags_to_root(CLI::App& root) {
  for (const CLI::App* command : root.get_subcommands({})) {
    for (const CLI::Option* flag : command->get_options()) {
      if (!flag->nonpositional() || root_has_spelling(root, *flag)) continue;
      const std::string names = flag->get_name(false, true);
      const std::string spelling = names.substr(0, names.find(','));
      // A switch (get -w, logs -f) is read after its command only: a root
      // twin would take the command's name as its value.
      if (flag->get_type_size_max() == 0) continue;
      add_value_flag(root, names, flag->get_type_name(),
                     [&root, name = flag->get_name(), spelling](const std::string& value) {
                       if (forward_to_command(root, name, value)) return;
                       if (const CLI::App* command = parsed_command(root)) {
                         throw UsageError(command->get_name() + " does not take " + spelling);
                       }
                     });
    }
  }
}

std::string usage_hint(const CLI::App* command) {
  if (command == nullptr) return "";
  return " (usage: gantryctl " + std::string(find_command(command->get_name())->synopsis) + ")";
}

// CLI11's error, worded as gantryctl words it: naming the argument.
UsageError usage_error(const CLI::ParseError& error, const CLI::App& root) {
  const CLI::App* command = parsed_command(root);
  const std::vector<std::string> extras = root.remaining(true);
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr && !extras.empty()) {
    const std::string& extra = extras.front();
    if (extra.size() > 1 && extra.front() == '-') {
      return UsageError("unknown flag \"" + extra.substr(0, extra.find('=')) + "\"");
    }
    if (command == nullptr) return UsageError("unknown command \"" + extra + "\"");
    return UsageError(command->get_name() + ": unexpected argument \"" + extra + "\"" +
                      usage_hint(command));
  }
  const std::string prefix = command == nullptr ? "" : command->get_name() + ": ";
  const bool missing = dynamic_cast<const CLI::RequiredError*>(&error) != nullptr;
  return UsageError(prefix + error.what() + (missing ? usage_hint(command) : ""));
}

// "  get jobs|clusters|queues        list, ..." for every command.
// The help's lines of every command, or only of those named `topic`.
std::string command_lines(std::string_view topic = "") {
  std::string text;
  for (const CommandSpec* command : command_table()) {
    if (!topic.empty() && command->name != topic) continue;
    std::string line = "  " + std::string(command->synopsis);
    if (line.size() < kSummaryColumn) {
      line.append(kSummaryColumn - line.size(), ' ');
    } else {
      line += "\n" + std::string(kSummaryColumn, ' ');
    }
    for (const char c : command->summary) {
      line += c;
      if (c == '\n') line.append(kSummaryColumn, ' ');
    }
    text += line + "\n";
  }
  return text;
}

}  // namespace

Invocation parse_arguments(const std::vector<std::string>& args, const char* env_hub) {
  Invocation out;
  if (args.size() == 1 && args.front() == "--version") {  // as the other programs answer it
    out.command = "version";
    return out;
  }
  bool hub_given = false;
  CLI::App root("gantryctl: operate a Gantry hub", "gantryctl");
  root.set_help_flag("-h,--help");
  root.require_subcommand(0, 1);
  add_connection_flags(root, out, hub_given);
  for (const CommandSpec* spec : command_table()) {
    CLI::App* command = root.add_subcommand(std::string(spec->name));
    command->fallthrough();  // the connection flags go after the command too
    spec->add_to(*command, out);
  }
  add_command_flags_to_root(root);
  try {
    root.parse(std::vector<std::string>(args.rbegin(), args.rend()));  // CLI11 takes them reversed
  } catch (const CLI::CallForHelp&) {
    Invocation help;
    help.command = "help";
    help.help_topic = named_command(args);  // get jobs --help: get's usage
    return help;
  } catch (const CLI::ParseError& e) {
    throw usage_error(e, root);
  }
  const CLI::App* command = parsed_command(root);
  out.command = command == nullptr ? "help" : command->get_name();
  if (!hub_given && env_hub != nullptr && *env_hub != '\0') {
    out.hub = checked_endpoint(env_hub, "GANTRY_HUB");
  }
  return out;
}

std::string named_command(const std::vector<std::string>& args) {
  for (const std::string& arg : args)
    if (find_command(arg) != nullptr) return arg;
  return "";
}

std::string usage_text(std::string_view topic) {
  if (const CommandSpec* command = topic.empty() ? nullptr : find_command(topic)) {
    return "Usage:\n  gantryctl " + std::string(command->synopsis) + "\n\n" +
           std::string(command->summary) + "\n";
  }
  return "gantryctl: operate a Gantry hub\n\n"
         "Usage:\n"
         "  gantryctl [--hub ENDPOINT] [--hub-key FILE] [--key FILE] [--insecure]\n"
         "            [--timeout DURATION] COMMAND ...\n"
         "  gantryctl --version\n"
         "\n"
         "Commands:\n" +
         command_lines() + R"(
Flags:
  --hub ENDPOINT[,...]    hub admin endpoint, or the hubs sharing one store: the one that
                          holds it answers (default $GANTRY_HUB, else tcp://127.0.0.1:7801)
  --hub-key FILE          the hub's public key (default $GANTRY_HUB_KEY, else CONFIG/hub.pub)
  --key FILE              gantryctl's keypair (default $GANTRY_KEY, else CONFIG/gantryctl.key)
  --insecure              plaintext, no keys: only for a hub started with --insecure
  --timeout DURATION      how long to wait for each answer from the hub (default 5s);
                          for wait: how long to wait for the phase (default 30s)
  --request-timeout DURATION
                          per-request timeout, also for wait (default 5s)
  -o, --output json|table|wide
                          output format of get (wide: more columns for clusters)
  -f, --filename FILE     input of submit and apply
  --dir DIR               where keys generate writes NAME.key and NAME.pub (default .)

CONFIG is $GANTRY_CONFIG_DIR, else ${XDG_CONFIG_HOME:-$HOME/.config}/gantry.
Make a keypair with 'gantryctl keys generate gantryctl --dir CONFIG'.
Durations: 500ms, 30s, 2m, 1h30m.
Exit status: 0 success; 1 refused by the hub, failed or timed out waiting;
             2 bad arguments, missing keys or the hub did not answer.
)";
}

}  // namespace gantry::console
