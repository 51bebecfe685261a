#include "console/command_line.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <vector>

#include "console/arguments.hpp"
#include "console/duration.hpp"

namespace gantry::console {

std::string singular_kind(std::string_view plural) {
  const std::size_t cut = plural.ends_with("sses") ? 2 : plural.ends_with('s') ? 1 : 0;
  return std::string(plural.substr(0, plural.size() - cut));
}

namespace {

// "jobs" <-> "job", "priorityclasses" <-> "priorityclass": both spellings
// name the same kind.
bool same_kind(std::string_view value, std::string_view canonical) {
  return value == canonical || singular_kind(value) == canonical ||
         singular_kind(canonical) == value;
}

// "jobs, clusters or queues".
std::string alternatives(std::initializer_list<std::string_view> words) {
  std::string text;
  std::size_t index = 0;
  for (const std::string_view word : words) {
    if (index > 0) text += index + 1 == words.size() ? " or " : ", ";
    text += word;
    ++index;
  }
  return text;
}

}  // namespace

void add_operand(CLI::App& command, const std::string& name, ApplyValue apply) {
  command.add_option_function<std::string>(name, std::move(apply))->required();
}

void add_value_flag(CLI::App& command, const std::string& names, const std::string& value_name,
                    ApplyValue apply, bool required) {
  // All values are collected, so a second one is reported instead of winning.
  const std::string name = names.substr(0, names.find(','));
  CLI::Option* flag = command.add_option_function<std::vector<std::string>>(
      names, [name, apply = std::move(apply)](const std::vector<std::string>& values) {
        if (values.size() > 1) throw UsageError(name + " is given twice");
        apply(values.front());
      });
  flag->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  flag->type_name(value_name)->required(required);
}

void add_kind_operand(CLI::App& command, std::string& kind,
                      std::initializer_list<std::string_view> kinds) {
  std::vector<std::string> canonical(kinds.begin(), kinds.end());
  const std::string expected = alternatives(kinds);
  add_operand(
      command, "KIND",
      [&kind, canonical, expected, name = command.get_name()](const std::string& value) {
        for (const std::string& accepted : canonical) {
          if (same_kind(value, accepted)) {
            kind = accepted;
            return;
          }
        }
        throw UsageError(name + ": unknown kind \"" + value + "\" (expected " + expected + ")");
      });
}

void add_name_operand(CLI::App& command, std::string& name) {
  add_operand(command, "NAME", [&name](const std::string& value) { name = value; });
}

void add_file_flags(CLI::App& command, Invocation& invocation) {
  CLI::Option* flag = command.add_option_function<std::vector<std::string>>(
      "-f,--filename", [&invocation](const std::vector<std::string>& values) {
        for (const std::string& value : values) {
          if (value.empty()) throw UsageError("-f: empty file name");
          if (value == "-" && std::count(values.begin(), values.end(), "-") > 1)
            throw UsageError("-f: \"-\" (stdin) is given twice");
        }
        invocation.files = values;
      });
  flag->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  flag->type_name("FILE|DIR")->required(true);
  command.add_flag("-R,--recursive", invocation.recursive,
                   "-f DIR also reads the directories below it");
}

void ignore_operands(CLI::App& command) {
  command.fallthrough(false);  // else CLI11 hands them back to the line before the command
  command.prefix_command();
}

std::chrono::milliseconds checked_duration(std::string_view flag, const std::string& text,
                                           bool allow_zero) {
  std::chrono::milliseconds duration{};
  try {
    duration = parse_duration(text);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string(flag) + ": " + e.what());
  }
  if (!allow_zero && duration.count() == 0) {
    throw UsageError(std::string(flag) + ": must be longer than 0 (got \"" + text + "\")");
  }
  return duration;
}

}  // namespace gantry::console
