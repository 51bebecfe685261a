// gantryctl logs job NAME: what a replica printed, read by the agent that runs
// it and passed on by the hub, as kubectl logs reads a pod's.
#include <CLI/CLI.hpp>
#include <chrono>
#include <optional>
#include <ostream>
#include <string>

#include "config/command_line.hpp"
#include "console/command_context.hpp"
#include "console/command_line.hpp"
#include "console/command_table.hpp"

namespace gantry::console {

namespace {

std::int32_t parse_count(const std::string& flag, const std::string& value, std::int32_t limit) {
  const std::optional<std::int32_t> parsed = command_line::whole_text_number<std::int32_t>(value);
  if (!parsed || *parsed < 0 || *parsed > limit)
    throw UsageError(flag + ": \"" + value + "\" is not a whole number from 0 to " +
                     std::to_string(limit));
  return *parsed;
}

void add_logs(CLI::App& command, Invocation& invocation) {
  add_kind_operand(command, invocation.kind, {"job"});
  add_name_operand(command, invocation.name);
  add_value_flag(command, "--task", "TASK",
                 [&invocation](const std::string& value) { invocation.task = value; });
  add_value_flag(command, "--replica", "INDEX", [&invocation](const std::string& value) {
    invocation.replica = parse_count("--replica", value, 1'000'000);
  });
  add_value_flag(command, "--tail", "LINES", [&invocation](const std::string& value) {
    invocation.tail = parse_count("--tail", value, protocol::kMaxTailLines);
  });
  command.add_flag("-f,--follow", invocation.follow,
                   "keep printing what the replica prints until it ends");
}

int run_logs(CommandContext& context) {
  const Invocation& invocation = context.invocation;
  protocol::LogsRequest request;
  request.job = invocation.name;
  request.task = invocation.task;
  request.replica = invocation.replica;
  request.follow = invocation.follow;
  request.tail_lines = invocation.tail;
  HubClient& hub = context.hub();
  const std::uint64_t seq = hub.open(request);
  // While following, the agent says it is there at least every keepalive.
  const std::chrono::milliseconds between =
      invocation.follow ? std::chrono::milliseconds(3 * protocol::kWatchKeepaliveMs)
                        : invocation.request_timeout;
  for (auto wait = invocation.request_timeout;; wait = between) {
    const auto chunk = hub.next<protocol::LogsChunk>(seq, wait);
    context.out << chunk.data << std::flush;
    if (!chunk.end) continue;
    if (chunk.error.empty()) return kExitOk;
    context.err << "error: " << chunk.error << "\n";
    return kExitFailed;
  }
}

}  // namespace

extern const CommandSpec kLogsCommand{
    "logs", "logs job NAME [--task TASK] [--replica INDEX] [--tail LINES] [-f]",
    "print what a replica wrote to stdout and stderr (default: the first task's\n"
    "replica 0), read by its cluster's agent; -f keeps printing until it ends",
    add_logs, run_logs};

}  // namespace gantry::console
