// kubectl's -l/--selector for jobs, on their metadata.labels: requirements
// separated by commas, all of which a job must meet: `key=value` (or
// `key==value`), `key!=value` (also met when the key is absent), `key` (the
// key is there) and `!key` (it is not).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "protocol/messages.hpp"

namespace gantry::console {

struct LabelRequirement {
  enum class Op { kEquals, kNotEquals, kExists, kNotExists };
  std::string key;
  Op op = Op::kExists;
  std::string value;
};

using LabelSelector = std::vector<LabelRequirement>;

// Throws UsageError naming -l and the requirement it cannot read.
LabelSelector parse_label_selector(std::string_view text);

bool matches(const LabelSelector& selector, const protocol::Labels& labels);

}  // namespace gantry::console
