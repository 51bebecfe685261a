// gantryctl completion bash|zsh: a shell completion script made from the
// command table itself (its commands, kinds, flags and flag values), so it
// cannot fall behind the commands. Names of jobs, queues, clusters and
// PriorityClasses are asked of the hub as the user types, through
// `gantryctl get KIND -o name` with the --hub, --hub-key, --key and
// --insecure given on the line, as kubectl completes names.
#pragma once

#include <string>
#include <string_view>

namespace gantry::console {

// Throws UsageError for a shell other than bash or zsh.
std::string completion_script(std::string_view shell);

}  // namespace gantry::console
