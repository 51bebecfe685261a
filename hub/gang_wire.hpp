// A resolved gang on the wire (protocol::ResolvedGang, Prepare::gang) and
// back: the hub sends the gang it placed, and an agent admits exactly that,
// not its own reading of the spec.
#pragma once

#include "hub/gang.hpp"
#include "protocol/messages.hpp"

namespace gantry::hub {

protocol::ResolvedGang gang_to_wire(const GangShape& gang);

// The gang `wire` describes. Throws FieldError naming the field under "gang"
// when no resolver could have made it: no tasks, a task without replicas or
// with a negative request, too many distinct resources, minAvailable outside
// 1 .. the replicas, a partition rule that does not fit its task, or a
// topology mode or tier the hub does not know.
GangShape gang_from_wire(const protocol::ResolvedGang& wire);

}  // namespace gantry::hub
