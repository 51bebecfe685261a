#include "console/arguments.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "console/duration.hpp"
#include "protocol/messages.hpp"

namespace gantry::console {

namespace {

struct FlagValue {
  std::string spelling;  // as the user wrote it, for error messages
  std::string value;
};
using Flags = std::map<std::string, FlagValue>;  // canonical name -> value

struct CommandLine {
  std::vector<std::string> operands;
  Flags flags;
  bool help = false;
};

// Canonical names of flags that take a value, by every accepted spelling.
const std::map<std::string, std::string>& value_flags() {
  static const std::map<std::string, std::string> flags{{"--hub", "hub"},
                                                        {"--timeout", "timeout"},
                                                        {"--request-timeout", "request-timeout"},
                                                        {"-o", "output"},
                                                        {"--output", "output"},
                                                        {"-f", "filename"},
                                                        {"--filename", "filename"},
                                                        {"--for", "for"}};
  return flags;
}

CommandLine split_command_line(const std::vector<std::string>& args) {
  CommandLine line;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      line.help = true;
      continue;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      line.operands.push_back(arg);
      continue;
    }
    const std::size_t equals = arg.find('=');
    const std::string spelling = arg.substr(0, equals);
    const auto flag = value_flags().find(spelling);
    if (flag == value_flags().end()) throw UsageError("unknown flag \"" + spelling + "\"");
    std::string value;
    if (equals != std::string::npos) {
      value = arg.substr(equals + 1);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      throw UsageError(spelling + " needs a value");
    }
    if (line.flags.contains(flag->second)) throw UsageError(spelling + " is given twice");
    line.flags[flag->second] = FlagValue{spelling, value};
  }
  return line;
}

std::optional<FlagValue> take(Flags& flags, const std::string& name) {
  const auto it = flags.find(name);
  if (it == flags.end()) return std::nullopt;
  FlagValue value = it->second;
  flags.erase(it);
  return value;
}

std::string checked_endpoint(const std::string& endpoint, const std::string& source) {
  if (endpoint.find("://") == std::string::npos || endpoint.ends_with("://")) {
    throw UsageError(source + ": \"" + endpoint +
                     "\" is not a ZeroMQ endpoint (expected e.g. tcp://127.0.0.1:7801)");
  }
  return endpoint;
}

std::chrono::milliseconds checked_duration(const FlagValue& flag, bool allow_zero) {
  std::chrono::milliseconds duration{};
  try {
    duration = parse_duration(flag.value);
  } catch (const std::invalid_argument& e) {
    throw UsageError(flag.spelling + ": " + e.what());
  }
  if (!allow_zero && duration.count() == 0) {
    throw UsageError(flag.spelling + ": must be longer than 0 (got \"" + flag.value + "\")");
  }
  return duration;
}

// Maps any accepted spelling of a resource kind to its canonical form.
std::string checked_kind(const std::string& command, const std::string& kind,
                         const std::map<std::string, std::string>& accepted,
                         const std::string& expected) {
  const auto it = accepted.find(kind);
  if (it == accepted.end()) {
    throw UsageError(command + ": unknown kind \"" + kind + "\" (expected " + expected + ")");
  }
  return it->second;
}

const std::map<std::string, std::string> kPluralKinds{
    {"jobs", "jobs"},        {"job", "jobs"},      {"clusters", "clusters"},
    {"cluster", "clusters"}, {"queues", "queues"}, {"queue", "queues"}};
const std::map<std::string, std::string> kSingularKinds{
    {"job", "job"},          {"jobs", "job"},    {"cluster", "cluster"},
    {"clusters", "cluster"}, {"queue", "queue"}, {"queues", "queue"}};

void expect_operands(const std::string& command, const std::vector<std::string>& operands,
                     std::size_t count, const std::string& synopsis) {
  if (operands.size() - 1 < count) {
    throw UsageError(command + ": missing arguments (usage: gantryctl " + synopsis + ")");
  }
  if (operands.size() - 1 > count) {
    throw UsageError(command + ": unexpected argument \"" + operands[count + 1] +
                     "\" (usage: gantryctl " + synopsis + ")");
  }
}

std::string canonical_phase(const FlagValue& flag) {
  static constexpr std::array kPhases{protocol::phase::kPending,    protocol::phase::kRunning,
                                      protocol::phase::kRestarting, protocol::phase::kCompleted,
                                      protocol::phase::kFailed,     protocol::phase::kAborted};
  constexpr std::string_view kPrefix = "phase=";
  if (!flag.value.starts_with(kPrefix)) {
    throw UsageError(flag.spelling + ": expected phase=PHASE (got \"" + flag.value + "\")");
  }
  const std::string wanted = flag.value.substr(kPrefix.size());
  const auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
  };
  for (const char* phase : kPhases) {
    if (lower(phase) == lower(wanted)) return phase;
  }
  throw UsageError(flag.spelling + ": unknown phase \"" + wanted +
                   "\" (expected Pending, Running, Restarting, Completed, Failed or Aborted)");
}

// Reads the command's operands and its own flags out of `line`.
void parse_command(const std::string& command, CommandLine& line, Invocation& out) {
  const auto& ops = line.operands;
  if (command == "submit" || command == "apply") {
    expect_operands(command, ops, 0, command + " -f FILE");
    const auto file = take(line.flags, "filename");
    if (!file) throw UsageError(command + ": -f FILE is required (\"-\" reads stdin)");
    if (file->value.empty()) throw UsageError(file->spelling + ": empty file name");
    out.file = file->value;
  } else if (command == "get") {
    expect_operands(command, ops, 1, "get jobs|clusters|queues [-o json]");
    out.kind = checked_kind(command, ops[1], kPluralKinds, "jobs, clusters or queues");
    if (const auto output = take(line.flags, "output")) {
      if (output->value != "json" && output->value != "table") {
        throw UsageError(output->spelling + ": unknown output format \"" + output->value +
                         "\" (expected json or table)");
      }
      out.json = output->value == "json";
    }
  } else if (command == "describe") {
    expect_operands(command, ops, 2, "describe job|queue|cluster NAME");
    out.kind = checked_kind(command, ops[1], kSingularKinds, "job, queue or cluster");
    out.name = ops[2];
  } else if (command == "cancel") {
    expect_operands(command, ops, 2, "cancel job NAME");
    out.kind = checked_kind(command, ops[1], {{"job", "job"}, {"jobs", "job"}}, "job");
    out.name = ops[2];
  } else if (command == "delete") {
    expect_operands(command, ops, 2, "delete queue NAME");
    out.kind = checked_kind(command, ops[1], {{"queue", "queue"}, {"queues", "queue"}}, "queue");
    out.name = ops[2];
  } else if (command == "wait") {
    const std::string synopsis = "wait job NAME --for phase=PHASE [--timeout 30s]";
    expect_operands(command, ops, 2, synopsis);
    out.kind = checked_kind(command, ops[1], {{"job", "job"}, {"jobs", "job"}}, "job");
    out.name = ops[2];
    const auto phase = take(line.flags, "for");
    if (!phase) throw UsageError("wait: --for phase=PHASE is required");
    out.wait_phase = canonical_phase(*phase);
    // For wait, --timeout bounds the whole wait (as in kubectl wait).
    if (const auto timeout = take(line.flags, "timeout")) {
      out.wait_timeout = checked_duration(*timeout, true);
    }
  } else if (command == "version") {
    expect_operands(command, ops, 0, command);
  } else if (command != "help") {  // help ignores operands: "help get" still helps
    throw UsageError("unknown command \"" + command + "\"");
  }
}

void parse_connection_flags(CommandLine& line, const char* env_hub, Invocation& out) {
  if (const auto hub = take(line.flags, "hub")) {
    out.hub = checked_endpoint(hub->value, hub->spelling);
  } else if (env_hub != nullptr && *env_hub != '\0') {
    out.hub = checked_endpoint(env_hub, "GANTRY_HUB");
  }
  if (const auto timeout = take(line.flags, "request-timeout")) {
    out.request_timeout = checked_duration(*timeout, false);
  }
  if (const auto timeout = take(line.flags, "timeout")) {
    out.request_timeout = checked_duration(*timeout, false);
  }
}

}  // namespace

Invocation parse_arguments(const std::vector<std::string>& args, const char* env_hub) {
  CommandLine line = split_command_line(args);
  Invocation out;
  if (line.help || line.operands.empty()) {
    out.command = "help";
    return out;
  }
  out.command = line.operands[0];
  parse_command(out.command, line, out);
  parse_connection_flags(line, env_hub, out);
  if (!line.flags.empty()) {
    throw UsageError(out.command + " does not take " + line.flags.begin()->second.spelling);
  }
  return out;
}

std::string usage_synopsis() {
  return R"(Usage:
  gantryctl [--hub ENDPOINT] [--timeout DURATION] COMMAND ...

Commands:
  submit -f FILE                  submit a Volcano Job (FILE "-" reads stdin); prints its name
  get jobs|clusters|queues        list, as a table or with -o json as a JSON array
  describe job|queue|cluster NAME show one object in detail, with a job's events
  cancel job NAME                 stop a job on every cluster it runs on
  wait job NAME --for phase=PHASE [--timeout 30s]
                                  wait until the job reaches PHASE (Pending, Running,
                                  Restarting, Completed, Failed, Aborted)
  apply -f FILE                   create or update queues
  delete queue NAME               delete a queue
  version                         print gantryctl's version
  help                            print flags, durations and exit statuses
)";
}

std::string usage_text() {
  return "gantryctl: operate a Gantry hub\n\n" + usage_synopsis() + R"(
Flags:
  --hub ENDPOINT          hub admin endpoint (default $GANTRY_HUB, else tcp://127.0.0.1:7801)
  --timeout DURATION      how long to wait for each answer from the hub (default 5s);
                          for wait: how long to wait for the phase (default 30s)
  --request-timeout DURATION
                          per-request timeout, also for wait (default 5s)
  -o, --output json|table output format of get
  -f, --filename FILE     input of submit and apply

Durations: 500ms, 30s, 2m, 1h30m.
Exit status: 0 success; 1 refused by the hub, failed or timed out waiting;
             2 bad arguments or the hub did not answer.
)";
}

}  // namespace gantry::console
