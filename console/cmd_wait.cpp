#include <ostream>
#include <thread>

#include "console/command_line.hpp"
#include "console/command_table.hpp"
#include "console/commands.hpp"
#include "console/job_phase.hpp"
#include "hub/duration.hpp"

namespace gantry::console {

namespace {

// How often the phase is asked for: often enough to feel immediate to a
// person, rare enough not to load the hub.
constexpr std::chrono::milliseconds kPollInterval{200};

bool is_terminal(std::string_view phase) {
  return phase == protocol::phase::kCompleted || phase == protocol::phase::kFailed ||
         phase == protocol::phase::kAborted || phase == protocol::phase::kTerminated;
}

// "phase=running" -> "Running".
std::string canonical_phase(const std::string& value) {
  constexpr std::string_view kPrefix = "phase=";
  if (!value.starts_with(kPrefix)) {
    throw UsageError("--for: expected phase=PHASE (got \"" + value + "\")");
  }
  return canonical_job_phase("--for", value.substr(kPrefix.size()));
}

void add_wait(CLI::App& command, Invocation& invocation) {
  add_kind_operand(command, invocation.kind, {"job"});
  add_name_operand(command, invocation.name);
  add_value_flag(
      command, "--for", "phase=PHASE",
      [&invocation](const std::string& value) { invocation.wait_phase = canonical_phase(value); },
      /*required=*/true);
  // For wait, --timeout bounds the whole wait (as in kubectl wait).
  add_value_flag(command, "--timeout", "DURATION", [&invocation](const std::string& value) {
    invocation.wait_timeout = checked_duration("--timeout", value, true);
  });
}

}  // namespace

WaitVerdict judge_phase(std::string_view seen, std::string_view wanted) {
  if (seen == wanted) return WaitVerdict::kReached;
  if (is_terminal(seen)) return WaitVerdict::kEndedElsewhere;
  return WaitVerdict::kKeepWaiting;
}

namespace {

int run_wait(CommandContext& context) {
  const Invocation& invocation = context.invocation;
  const auto deadline = std::chrono::steady_clock::now() + invocation.wait_timeout;
  const std::string job = "job/" + invocation.name;
  for (;;) {
    const auto reply = context.hub().call<protocol::DescribeReply>(
        protocol::DescribeRequest{"job", invocation.name});
    if (!reply.ok) {
      context.err << "error: " << reply.error << "\n";
      return kExitFailed;
    }
    const std::string& phase = reply.job.phase;
    switch (judge_phase(phase, invocation.wait_phase)) {
      case WaitVerdict::kReached:
        context.out << job << " reached phase " << phase << "\n";
        return kExitOk;
      case WaitVerdict::kEndedElsewhere:
        context.err << job << " ended in phase " << phase << " (waited for "
                    << invocation.wait_phase << ")"
                    << (reply.job.reason.empty() ? "" : ": " + reply.job.reason) << "\n";
        return kExitFailed;
      case WaitVerdict::kKeepWaiting:
        break;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      context.err << "timed out after " << hub::format_duration(invocation.wait_timeout.count())
                  << " waiting for " << job << " to reach phase " << invocation.wait_phase
                  << "; last seen phase: " << phase << "\n";
      return kExitFailed;
    }
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(kPollInterval, deadline - now));
  }
}

}  // namespace

extern const CommandSpec kWaitCommand{
    "wait", "wait job NAME --for phase=PHASE [--timeout 30s]",
    "wait until the job reaches PHASE: Pending, Running,\nRestarting, Completing, Aborting, "
    "Terminating,\nCompleted, Failed, Aborted or Terminated (exit 1\nif it ends in another)",
    add_wait, run_wait};

}  // namespace gantry::console
