// What the gantryctl commands share beyond their CommandSpec: reading -f FILE,
// printing an AdminResult and judging a phase for wait (exposed for tests).
#pragma once

#include <string>
#include <string_view>

#include "console/command_context.hpp"

namespace gantry::console {

// The text of -f FILE, or of stdin for "-". Throws UsageError naming the file.
std::string read_input_file(CommandContext& context);

// The hub's message (else `success_fallback`) on stdout and kExitOk, or its
// error on stderr and kExitFailed.
int print_admin_result(CommandContext& context, const protocol::AdminResult& result,
                       const std::string& success_fallback);

// What one look at a job's phase means for `wait --for phase=wanted`.
enum class WaitVerdict {
  kReached,        // phase == wanted
  kKeepWaiting,    // not there yet, may still get there
  kEndedElsewhere  // a terminal phase other than the wanted one: it never will
};
WaitVerdict judge_phase(std::string_view seen, std::string_view wanted);

}  // namespace gantry::console
