#include "console/label_selector.hpp"

#include "console/arguments.hpp"

namespace gantry::console {

namespace {

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

// Label keys and values never hold these; a requirement that does is a typo
// or a set-based one (`key in (a,b)`), which gantryctl does not read.
bool plain(std::string_view text) {
  return !text.empty() && text.find_first_of("=!() ") == std::string_view::npos;
}

LabelRequirement read_requirement(std::string_view text) {
  const auto refuse = [text](const std::string& why) {
    return UsageError("-l: cannot read \"" + std::string(text) + "\": " + why +
                      " (expected key=value, key!=value, key or !key, separated by commas)");
  };
  LabelRequirement requirement;
  std::string_view value;
  if (const std::size_t at = text.find("!="); at != std::string_view::npos) {
    requirement.op = LabelRequirement::Op::kNotEquals;
    requirement.key = std::string(trimmed(text.substr(0, at)));
    value = trimmed(text.substr(at + 2));
  } else if (const std::size_t eq = text.find('='); eq != std::string_view::npos) {
    requirement.op = LabelRequirement::Op::kEquals;
    const std::size_t skip = text.substr(eq, 2) == "==" ? 2 : 1;
    requirement.key = std::string(trimmed(text.substr(0, eq)));
    value = trimmed(text.substr(eq + skip));
  } else if (!text.empty() && text.front() == '!') {
    requirement.op = LabelRequirement::Op::kNotExists;
    requirement.key = std::string(trimmed(text.substr(1)));
  } else {
    requirement.key = std::string(text);
  }
  if (!plain(requirement.key)) throw refuse("not a label key");
  // An empty value is a label's legal value (key=); anything else must be plain.
  if (!value.empty() && !plain(value)) throw refuse("not a label value");
  requirement.value = std::string(value);
  return requirement;
}

}  // namespace

LabelSelector parse_label_selector(std::string_view text) {
  LabelSelector selector;
  while (true) {
    const std::size_t comma = text.find(',');
    selector.push_back(read_requirement(trimmed(text.substr(0, comma))));
    if (comma == std::string_view::npos) break;
    text = text.substr(comma + 1);
  }
  return selector;
}

bool matches(const LabelSelector& selector, const protocol::Labels& labels) {
  for (const LabelRequirement& requirement : selector) {
    const auto found = labels.find(requirement.key);
    const bool present = found != labels.end();
    switch (requirement.op) {
      case LabelRequirement::Op::kEquals:
        if (!present || found->second != requirement.value) return false;
        break;
      case LabelRequirement::Op::kNotEquals:
        if (present && found->second == requirement.value) return false;
        break;
      case LabelRequirement::Op::kExists:
        if (!present) return false;
        break;
      case LabelRequirement::Op::kNotExists:
        if (present) return false;
        break;
    }
  }
  return true;
}

}  // namespace gantry::console
