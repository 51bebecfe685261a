// Parses a Volcano Job document (apiVersion batch.volcano.sh/v1alpha1,
// kind Job) into a protocol::JobSpec.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "protocol/messages.hpp"

namespace YAML {
class Node;
}

namespace gantry::config {

// PriorityClass name -> value. Embedded defaults: "high-priority" 1000,
// "default-priority" 0, "low-priority" -1000 (and "" -> 0).
using PriorityClasses = std::map<std::string, std::int32_t>;
const PriorityClasses& default_priority_classes();

// Throws hub::FieldError naming the offending field (e.g.
// "spec.tasks[0].replicas") and its value. Unknown fields under spec/tasks are
// refused as well, so a typo does not silently change a job.
protocol::JobSpec parse_volcano_job(std::string_view yaml,
                                    const PriorityClasses& classes = default_priority_classes());

// The same, of a document already loaded (config::load_document): a job
// array's elements are read from the one document, patched per index.
protocol::JobSpec parse_volcano_job(const YAML::Node& root,
                                    const PriorityClasses& classes = default_priority_classes());

}  // namespace gantry::config
