// Parses a Volcano Queue document (apiVersion scheduling.volcano.sh/v1beta1,
// kind Queue) into the core's QueueSpec.
#pragma once

#include <string_view>

#include "hub/queue_spec.hpp"

namespace gantry::config {

// Fields: metadata.name; metadata.annotations "sla-waiting-time" (default for
// the queue's jobs), "gantry.io/placement", "gantry.io/default-time-limit" and
// "gantry.io/max-time-limit" (durations, the default at most the maximum);
// spec.weight, spec.capability, spec.deserved, spec.guarantee.resource,
// spec.reclaimable, spec.parent, spec.priority, spec.dequeueStrategy (fifo =
// strict FIFO, traverse = skip what does not fit, the default), and
// status.state (Open | Closing | Closed; Closing and Closed both close the
// queue to new jobs; spec.state is accepted too); spec.extendClusters and
// spec.affinity are checked for shape and kept for describe, not acted on.
// metadata.name root sets the whole pool's capability / guarantee / deserved.
// Throws hub::FieldError naming the field and value.
hub::QueueSpec parse_volcano_queue(std::string_view yaml);

}  // namespace gantry::config
