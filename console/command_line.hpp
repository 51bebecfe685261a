// Building blocks for CommandSpec::add_to: a command declares its operands and
// flags with these, so every command reads and reports them the same way.
// Each `apply` reads one value into the Invocation and throws UsageError,
// naming the argument and the value, when it is not one.
#pragma once

#include <chrono>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

namespace CLI {
class App;
}  // namespace CLI

namespace gantry::console {

struct Invocation;

using ApplyValue = std::function<void(const std::string& value)>;

// A required positional argument, e.g. "NAME".
void add_operand(CLI::App& command, const std::string& name, ApplyValue apply);

// A flag with one value ("-o,--output"), written as `--flag value` or
// `--flag=value`, before or after the command; given twice is an error.
void add_value_flag(CLI::App& command, const std::string& names, const std::string& value_name,
                    ApplyValue apply, bool required = false);

// "jobs" -> "job", "priorityclasses" -> "priorityclass" (a singular stays).
std::string singular_kind(std::string_view plural);

// KIND, one of `kinds` (canonical spellings such as "jobs" or "job"); the
// singular or plural twin of each is accepted and stored canonical.
void add_kind_operand(CLI::App& command, std::string& kind,
                      std::initializer_list<std::string_view> kinds);
void add_name_operand(CLI::App& command, std::string& name);
// -f FILE|DIR, required and repeatable ("-" reads stdin, once), and -R (a
// directory's subdirectories too), as kubectl's -f and -R.
void add_file_flags(CLI::App& command, Invocation& invocation);
// Whatever follows the command is accepted and ignored ("help get" still helps).
void ignore_operands(CLI::App& command);

// `text` as a duration for `flag` ("--timeout: ..." when it is not one).
std::chrono::milliseconds checked_duration(std::string_view flag, const std::string& text,
                                           bool allow_zero);

}  // namespace gantry::console
