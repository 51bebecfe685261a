#include <ostream>
#include <thread>

#include "console/commands.hpp"
#include "console/duration.hpp"

namespace gantry::console {

namespace {

// How often the phase is asked for: often enough to feel immediate to a
// person, rare enough not to load the hub.
constexpr std::chrono::milliseconds kPollInterval{200};

bool is_terminal(std::string_view phase) {
  return phase == protocol::phase::kCompleted || phase == protocol::phase::kFailed ||
         phase == protocol::phase::kAborted;
}

}  // namespace

WaitVerdict judge_phase(std::string_view seen, std::string_view wanted) {
  if (seen == wanted) return WaitVerdict::kReached;
  if (is_terminal(seen)) return WaitVerdict::kEndedElsewhere;
  return WaitVerdict::kKeepWaiting;
}

int run_wait(CommandContext& context) {
  const Invocation& invocation = context.invocation;
  const auto deadline = std::chrono::steady_clock::now() + invocation.wait_timeout;
  const std::string job = "job " + invocation.name;
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
      context.err << "timed out after " << format_duration(invocation.wait_timeout)
                  << " waiting for " << job << " to reach phase " << invocation.wait_phase
                  << "; last seen phase: " << phase << "\n";
      return kExitFailed;
    }
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(kPollInterval, deadline - now));
  }
}

}  // namespace gantry::console
