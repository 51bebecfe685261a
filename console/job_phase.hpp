// Job phases as users type them ("running", "Completed"): the one spelling
// gantryctl accepts for --for phase=, --phase and the like.
#pragma once

#include <string>

namespace gantry::console {

// The canonical phase ("Running") for `wanted` in any case. Throws UsageError
// naming `flag` and the phases it accepts.
std::string canonical_job_phase(const std::string& flag, const std::string& wanted);

}  // namespace gantry::console
