// What the gantryctl commands share beyond their CommandSpec: reading -f FILE,
// printing an AdminResult and judging a phase for wait (exposed for tests).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "console/command_context.hpp"

namespace gantry::console {

// One document of the -f inputs, and where it came from.
struct InputDocument {
  std::string text;
  std::vector<std::string> where;  // the file (when several), "document 2 of 3" (when several)
  // " (jobs/a.yaml, document 2 of 3)" for a message about it, and `job` (an
  // array's element) after the rest; "" when there is nothing to tell apart.
  std::string label(const std::string& job = "") const;
};

// Every document of every -f FILE|DIR|- in order: a directory's .yaml, .yml
// and .json files by name (-R: its subdirectories' too), each file split at
// its "---" lines. Throws UsageError naming the file.
std::vector<InputDocument> read_input_documents(CommandContext& context);

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
