// One function per gantryctl command; each returns the exit status.
#pragma once

#include <string>
#include <string_view>

#include "console/command_context.hpp"

namespace gantry::console {

int run_submit(CommandContext& context);
int run_get(CommandContext& context);
int run_describe(CommandContext& context);
int run_cancel(CommandContext& context);
int run_wait(CommandContext& context);
int run_apply(CommandContext& context);
int run_delete(CommandContext& context);
int run_version(CommandContext& context);
int run_help(CommandContext& context);

// The text of -f FILE, or of stdin for "-". Throws UsageError naming the file.
std::string read_input_file(CommandContext& context);

// What one look at a job's phase means for `wait --for phase=wanted`.
enum class WaitVerdict {
  kReached,        // phase == wanted
  kKeepWaiting,    // not there yet, may still get there
  kEndedElsewhere  // a terminal phase other than the wanted one: it never will
};
WaitVerdict judge_phase(std::string_view seen, std::string_view wanted);

}  // namespace gantry::console
