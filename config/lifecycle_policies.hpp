// Reads Volcano LifecyclePolicies (spec.policies, spec.tasks[].policies) and
// checks them as Volcano's admission webhook does, so a list Volcano refuses
// is refused here too, naming the field.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "protocol/messages.hpp"

namespace gantry::config {

// `node` is the policies list at `field` ("spec.policies"). Throws
// hub::FieldError naming the item: an unknown event or action, `event` (or
// `events`) together with `exitCode`, neither given, exitCode 0, an event or
// exit code given twice in the list, or "*" next to other events.
std::vector<protocol::LifecyclePolicy> read_lifecycle_policies(const YAML::Node& node,
                                                               const std::string& field);

}  // namespace gantry::config
